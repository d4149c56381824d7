import { spawn, type ChildProcessByStdio } from "node:child_process";
import type { Readable } from "node:stream";

/** A Node script an adapter test runs in a child process (a second "process" on one database). */
export interface NodeScript {
  script: string;
  args: string[];
  cwd?: string;
  /** Node options before the script, e.g. `["--import", "tsx"]`. */
  nodeArgs?: string[];
}

/**
 * Runs `script` to completion. The script must print `done` as its last line and exit 0; resolves
 * with the lines it printed before `done`, rejects with its stderr otherwise.
 */
export function runNodeScript(command: NodeScript): Promise<string[]> {
  const child = spawnNodeScript(command);
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("exit", (code, signal) => {
      const lines = stdout.split("\n").filter((line) => line !== "");
      if (code === 0 && lines.at(-1) === "done") resolve(lines.slice(0, -1));
      else reject(new Error(`${command.script} ${command.args.join(" ")} exited with ${String(signal ?? code)}: ${stderr}`));
    });
  });
}

/** Starts `script` with the current Node binary, stdout and stderr piped. */
export function spawnNodeScript(command: NodeScript): ChildProcessByStdio<null, Readable, Readable> {
  return spawn(process.execPath, [...(command.nodeArgs ?? []), command.script, ...command.args], {
    cwd: command.cwd,
    stdio: ["ignore", "pipe", "pipe"],
  });
}
