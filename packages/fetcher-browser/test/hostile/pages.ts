// Hostile target pages (issue 12), served by a real local HTTP server. Shared by the hostile
// tests and by the child process of the process-level test; each path is one finding.
import { html, startServer, type TestServer } from "../site.js";

export interface HostileSite {
  site: TestServer;
  /** Plays an internal service (127.0.0.2): a page must never reach it. */
  internal: TestServer;
  close(): Promise<void>;
}

export async function startHostileSite(): Promise<HostileSite> {
  const internal = await startServer((_req, res) => res.end("internal secret"), "127.0.0.2");
  const inside = internal.url;
  const site = await startServer((req, res) => {
    const page = (body: string): void => void res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(html(body));
    const url = new URL(req.url ?? "/", "http://x");
    switch (url.pathname) {
      case "/popup-open":
        page(`<p id="main">main</p><script>window.open("/popup-target");</script>`);
        return;
      case "/popup-blank":
        page(`<p id="main">main</p><a id="a" href="/popup-target" target="_blank">x</a><script>document.getElementById("a").click();</script>`);
        return;
      case "/popup-loop":
        page(`<p id="main">main</p><script>for (let i = 0; i < 40; i++) window.open("/popup-target?" + i, "_blank");</script>`);
        return;
      case "/popup-inward":
        page(`<p id="main">main</p><script>window.open("${inside}/via-popup"); setTimeout(() => window.open("about:blank").location = "${inside}/late", 50);</script>`);
        return;
      case "/popup-late":
        // Popups opened while the render is being read and closed.
        page(`<p id="main">main</p><script>setInterval(() => window.open("/popup-target"), 5);</script>`);
        return;
      case "/popup-storm":
        // Popups opened in bursts until the render is over, each with a request on its way: a
        // navigation, an about:blank popup sent elsewhere by its opener, a fetch from inside one.
        page(`<p id="main">main</p><script>
          let n = 0;
          const burst = () => {
            for (let i = 0; i < 6; i++) {
              const k = n++;
              window.open("/popup-target?storm=" + k);
              const blank = window.open("");
              if (blank !== null) {
                try { blank.fetch("/popup-target?fetch=" + k).catch(() => undefined); } catch {}
                try { blank.location.href = "/popup-target?assigned=" + k; } catch {}
              }
            }
          };
          burst();
          setInterval(burst, 5);
        </script>`);
        return;
      case "/popup-target":
        page(`<p>popup</p><script>fetch("/popup-fetch"); window.open("/popup-target?nested");</script>`);
        return;
      case "/navigate-inward":
        page(`<p>leaving</p><script>location.href = "${inside}/via-location";</script>`);
        return;
      case "/navigate-dead": {
        // A port nothing listens on (the server's own, once closed, is not reusable safely:
        // port 9 on 127.0.0.1 is discard, which nothing serves here).
        page(`<p>leaving</p><script>location.href = "http://127.0.0.1:9/gone";</script>`);
        return;
      }
      case "/egress":
        page(`
          <link rel="preconnect" href="http://127.0.0.2:${String(internal.port)}">
          <link rel="prefetch" href="${inside}/prefetch">
          <p id="fetch"></p><p id="ws"></p><p id="beacon"></p>
          <script>
            fetch("${inside}/fetch").then(() => "read", (e) => "failed " + e.name).then((t) => { document.getElementById("fetch").textContent = t; });
            const ws = new WebSocket("ws://127.0.0.2:${String(internal.port)}/ws");
            ws.onclose = () => { document.getElementById("ws").textContent = "ws closed"; };
            document.getElementById("beacon").textContent = String(navigator.sendBeacon("${inside}/beacon", "x"));
          </script>`);
        return;
      case "/webrtc": {
        const stun = url.searchParams.get("stun") ?? "";
        page(`<p id="rtc">pending</p><script>
          (async () => {
            const out = document.getElementById("rtc");
            try {
              const pc = new RTCPeerConnection({ iceServers: [{ urls: "stun:${stun}" }, { urls: "turn:${stun}?transport=udp", username: "u", credential: "p" }] });
              pc.createDataChannel("x");
              const candidates = [];
              pc.onicecandidate = (e) => { if (e.candidate) candidates.push(e.candidate.candidate); };
              await pc.setLocalDescription(await pc.createOffer());
              setTimeout(() => { out.textContent = "candidates " + candidates.length; }, 1200);
            } catch (e) { out.textContent = "failed " + e.name; }
          })();
        </script>`);
        return;
      }
      case "/allocate": {
        // Tries to hold ~1 GB in the JS heap (doubles in plain arrays: 8 bytes each).
        page(`<p id="alloc">start</p><script>
          const keep = [];
          for (let i = 0; i < 128; i++) { keep.push(new Array(1024 * 1024).fill(i + 0.5)); }
          document.getElementById("alloc").textContent = "held " + keep.length;
        </script>`);
        return;
      }
      case "/big-dom": {
        const n = Number(url.searchParams.get("n") ?? "1000");
        page(`<div id="out"></div><script>document.getElementById("out").textContent = "x".repeat(${String(n)});</script>`);
        return;
      }
      default:
        res.writeHead(404).end("missing");
    }
  });
  return {
    site,
    internal,
    close: async () => {
      await site.close();
      await internal.close();
    },
  };
}
