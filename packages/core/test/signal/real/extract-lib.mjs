// Helpers shared by the extraction scripts (extract.mjs, extract-fresh*.mjs; run once by hand, not
// by the tests): reading a repository mirrored as a bare clone (the mirror root, the scripts' first
// argument, holds owner+name/repo; git show is used, no work tree is needed), trimming payloads
// (arrays to 30 elements, pages as trimPage says, < 8 KB) and saving each payload with its entry in
// sources.json (repository, path, commit, licence, URL).
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const here = dirname(fileURLToPath(import.meta.url));
export const mirrors = process.argv[2] ?? "/work/.mirror";

export function git(repo, ...args) {
  return execFileSync("git", ["--git-dir", join(mirrors, repo.replace("/", "+"), "repo"), ...args], { encoding: "utf8", maxBuffer: 64 << 20 });
}
/** The commit a revision names (HEAD unless told: a file is taken at an older commit when the repository's licence changed since). */
export const commitOf = (repo, rev = "HEAD") => git(repo, "rev-parse", rev).trim();
export const show = (repo, path, rev = "HEAD") => git(repo, "show", `${rev}:${path}`);

export function trim(value) {
  if (Array.isArray(value)) return value.slice(0, 30).map(trim);
  if (value !== null && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, trim(v)]));
  return value;
}

/** A payload as it is saved: trimmed, indented by two, with a final newline. */
export const json = (value) => `${JSON.stringify(trim(value), null, 2)}\n`;
/** A source entry's provenance (the file's name is added by save). */
export const meta = (repo, commit, path, license, extra = {}) => ({ repository: repo, path, ...extra, commit, license, url: `https://github.com/${repo}/blob/${commit}/${path}` });
/** The licence noted for a saved page. */
export const pageLicense = (license) => `${license} (the repository; each page's content belongs to its publisher)`;

// Saved pages are trimmed alike: scripts, styles, inline SVG, comments, navigation menus, forms and
// most attributes go; the head keeps its title; a page over 8 KB starts at its <article> or
// <main> when it has one and is cut at 8 KB.
export function trimPage(raw) {
  let html = raw
    .replace(/<script\b[\s\S]*?<\/script>/gi, "")
    .replace(/<style\b[\s\S]*?<\/style>/gi, "")
    .replace(/<svg\b[\s\S]*?<\/svg>/gi, "")
    .replace(/<noscript\b[\s\S]*?<\/noscript>/gi, "")
    .replace(/<!--[\s\S]*?-->/g, "")
    .replace(/<(nav|form|select|iframe)\b[\s\S]*?<\/\1>/gi, "")
    .replace(/\s(?:style|srcset|sizes|data-[\w-]+|on\w+|aria-[\w-]+|role|target|rel|width|height|loading|decoding)="[^"]*"/gi, "")
    .replace(/\s*\n\s*/g, "\n");
  html = html.replace(/<head\b[\s\S]*?<\/head>/i, (head) => `<head>${/<title>[\s\S]*?<\/title>/i.exec(head)?.[0] ?? ""}</head>`);
  if (html.length > 8_000) {
    const body = /<body\b[^>]*>/i.exec(html);
    const main = /<(article|main)\b/i.exec(html);
    if (body && main && main.index > body.index) html = html.slice(0, body.index + body[0].length) + html.slice(main.index);
  }
  if (html.length > 8_000) html = `${html.slice(0, html.lastIndexOf("<", 8_000))}</body></html>\n`;
  return html;
}
/** A trimmed page is kept only when it still has a paragraph. */
export const hasParagraph = (html) => /<p[\s>]/i.test(html);

/**
 * Saves whole files of SDK test fixtures, groups of [repository, directory here, licence, files,
 * revision (optional, HEAD unless told)], each file [path in the repository, file name here,
 * measurement target (optional), pick (optional: the payload from the file's text, with the
 * entry's extra provenance - a pointer, a request -, for a file that holds more than the payload)].
 */
export function saveFixtures(save, groups) {
  for (const [repo, dir, license, files, rev = "HEAD"] of groups) {
    const commit = commitOf(repo, rev);
    for (const [path, file, measurements = false, pick] of files) {
      const text = show(repo, path, commit);
      const { value, extra } = pick ? pick(text) : { value: JSON.parse(text), extra: {} };
      save(dir, file, json(value), { ...meta(repo, commit, path, license, extra), ...(measurements ? { measurements: true } : {}) });
    }
  }
}

/**
 * Saves pages, trimmed by trimPage, groups of [repository, directory here, licence, files], each
 * file [path in the repository, file name here]; a page whose trimmed text has no paragraph is
 * skipped.
 */
export function savePages(save, groups) {
  for (const [repo, dir, license, files] of groups) {
    const commit = commitOf(repo);
    for (const [path, file] of files) {
      const html = trimPage(show(repo, path, commit));
      if (hasParagraph(html)) save(dir, file, html, meta(repo, commit, path, pageLicense(license)));
      else console.log(`skipped (no paragraph once trimmed): ${repo} ${path}`);
    }
  }
}

/**
 * The list of sources a script writes: a new one (`append: false`, extract.mjs) or sources.json as
 * it is, appended to (a file already listed is left as it is).
 */
export function sourceList({ append }) {
  const sources = append ? JSON.parse(readFileSync(join(here, "sources.json"), "utf8")) : [];
  const listed = new Set(sources.map((s) => s.file));
  return {
    sources,
    /** Writes a payload under real/<dir>/<file> and lists it with its provenance. */
    save(dir, file, text, entry) {
      if (append && listed.has(`${dir}/${file}`)) return;
      mkdirSync(join(here, dir), { recursive: true });
      writeFileSync(join(here, dir, file), text);
      sources.push({ file: `${dir}/${file}`, ...entry });
      listed.add(`${dir}/${file}`);
    },
    /** Lists payloads copied by hand (their entries complete), unless already listed. */
    hand(entries) {
      for (const entry of entries) if (!listed.has(entry.file)) sources.push(entry);
    },
    /** Writes sources.json. */
    write() {
      writeFileSync(join(here, "sources.json"), `${JSON.stringify(sources, null, 1)}\n`);
      console.log(`${sources.length} payloads`);
    },
  };
}
