// The language client's own log lines ("[Error - 10:04:01] Server process exited with code 0.")
// written at their real level in GradGuard's log channel, and a normal exit logged as info.
// Pure but for the channel it is given: no runtime `vscode` import, so it is unit-tested.

import type * as vscode from 'vscode';

export type LogLevel = 'trace' | 'debug' | 'info' | 'warn' | 'error';

const LEVELS: Record<string, LogLevel> = { Trace: 'trace', Debug: 'debug', Info: 'info', Warn: 'warn', Error: 'error' };
// vscode-languageclient writes `[${level.padEnd(5)} - ${time}] ${message}`.
const CLIENT_LINE = /^\[(Trace|Debug|Info|Warn|Error)\s*- [^\]]*\] ?([\s\S]*)$/;
const NORMAL_EXIT = /^Server process exited with code 0\.?$/;

/** The level and message of one of the language client's log lines; `undefined` for other text. */
export function classifyClientLine(line: string): { level: LogLevel; message: string } | undefined {
  const match = CLIENT_LINE.exec(line);
  if (!match) {
    return undefined;
  }
  const message = match[2];
  if (NORMAL_EXIT.test(message.trim())) {
    // The client reports every exit as an error; exit code 0 is a stop or a restart.
    return { level: 'info', message: 'Server process exited normally (code 0).' };
  }
  return { level: LEVELS[match[1]], message };
}

/**
 * An output channel for the language client that writes into `log`: the client's own lines at
 * their level (without the client's level-and-time prefix, which the log channel adds), and
 * everything else (the server's stderr) as it comes. Disposing of it leaves `log` open.
 */
export function clientOutputChannel(log: vscode.LogOutputChannel): vscode.OutputChannel {
  return {
    name: log.name,
    append: (text: string) => log.append(text),
    appendLine: (line: string) => {
      const parsed = classifyClientLine(line);
      if (parsed) {
        log[parsed.level](parsed.message);
      } else {
        log.appendLine(line);
      }
    },
    replace: (text: string) => log.replace(text),
    clear: () => log.clear(),
    show: (...args: unknown[]) => log.show(...(args as [boolean?])),
    hide: () => log.hide(),
    dispose: () => undefined,
  } as vscode.OutputChannel;
}
