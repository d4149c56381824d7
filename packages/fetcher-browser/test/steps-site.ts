// The local site of the browser-step tests: a login behind a session cookie, forms, popups and downloads.
import type { IncomingMessage } from "node:http";
import { PNG } from "pngjs";
import { html, startServer, type TestServer } from "./site.js";

export const PASSWORD = "correct horse 7!";

function body(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let text = "";
    req.on("data", (chunk: Buffer) => (text += chunk.toString()));
    req.on("end", () => resolve(text));
  });
}

export const forms = html(`
  <main id="main">
    <h1>Sign in</h1>
    <form method="post" action="/login">
      <input id="user" name="user"><input id="password" name="password" type="password">
      <select id="plan" name="plan"><option value="basic">Basic</option><option value="pro">Pro</option></select>
      <label><input id="terms" type="checkbox" name="terms"> Terms</label>
      <button type="submit">Sign in</button>
    </form>
    <p id="hint">Long page below</p><div style="height:3000px"></div><p id="bottom">Bottom</p>
  </main>`);

export interface StepsSite {
  server: TestServer;
  /** The body of the last POST /login. */
  lastLoginBody(): string;
}

export async function startStepsSite(): Promise<StepsSite> {
  let lastLoginBody = "";
  const server = await startServer((req, res) => {
    const url = req.url ?? "/";
    if (url === "/login" && req.method === "POST") {
      void body(req).then((text) => {
        lastLoginBody = text;
        const form = new URLSearchParams(text);
        if (form.get("user") === "alice" && form.get("password") === PASSWORD) {
          // POST, then 302 with the session cookie: the classic login.
          res.writeHead(302, { location: "/account", "set-cookie": "session=tok-123; HttpOnly; Path=/" }).end();
        } else res.writeHead(401, { "content-type": "text/html" }).end(html("<p>Wrong password</p>"));
      });
      return;
    }
    if (url === "/account") {
      if (/(^|; )session=tok-123(;|$)/.test(req.headers.cookie ?? "")) {
        res.writeHead(200, { "content-type": "text/html" }).end(html(`<h1 id="welcome">Welcome alice</h1><p id="balance">Balance: 42 EUR</p>`));
      } else res.writeHead(302, { location: "/login" }).end();
      return;
    }
    if (url === "/login") {
      res.writeHead(200, { "content-type": "text/html" }).end(forms);
      return;
    }
    if (url === "/popups") {
      res.writeHead(200, { "content-type": "text/html" }).end(
        html(`<p id="content">Popup page</p>
          <button id="open" onclick="window.open('/popup-target'); window.open('http://169.254.169.254/latest/meta-data/')">Open</button>
          <a id="dl" href="/download">Download</a>
          <a id="local" href="file:///etc/passwd">Local</a>
          <a id="metadata" href="http://169.254.169.254/latest/meta-data/">Metadata</a>`),
      );
      return;
    }
    if (url.startsWith("/loop")) {
      // Redirects without end, each hop on the same origin.
      const n = Number(new URL(url, "http://x").searchParams.get("n") ?? 0);
      res.writeHead(302, { location: `/loop?n=${String(n + 1)}` }).end();
      return;
    }
    if (url === "/to-metadata") {
      res.writeHead(302, { location: "http://169.254.169.254/latest/meta-data/" }).end();
      return;
    }
    if (url === "/download") {
      res.writeHead(200, { "content-type": "application/octet-stream", "content-disposition": 'attachment; filename="x.bin"' }).end("MZ-binary");
      return;
    }
    res.writeHead(200, { "content-type": "text/html" }).end(html(`<p>Other: ${url}</p>`));
  });
  return { server, lastLoginBody: () => lastLoginBody };
}

export function isPng(shot: { data: Uint8Array; width: number; height: number } | undefined): boolean {
  if (shot === undefined) return false;
  const png = PNG.sync.read(Buffer.from(shot.data));
  return png.width === shot.width && png.height === shot.height && shot.width > 0;
}
