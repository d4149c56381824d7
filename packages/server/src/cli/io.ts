/** Where a CLI command writes and what it reads, so tests can run commands in-process. */
export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
  env: Record<string, string | undefined>;
  cwd: string;
  /** Whether stderr is a terminal (progress bars are drawn only there). */
  stderrIsTTY?: boolean;
}

export function processIo(): CliIo {
  return {
    stdout: (text) => void process.stdout.write(text),
    stderr: (text) => void process.stderr.write(text),
    env: process.env,
    cwd: process.cwd(),
    stderrIsTTY: process.stderr.isTTY === true,
  };
}

/** Exit status of a command that could not run (bad usage, bad input, unreachable database). */
export const EXIT_ERROR = 2;
