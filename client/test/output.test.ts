import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type * as vscode from 'vscode';
import { classifyClientLine, clientOutputChannel } from '../src/output';

/** A LogOutputChannel that records which level each line was written at. */
function recordingLog(): { log: vscode.LogOutputChannel; lines: string[] } {
  const lines: string[] = [];
  const at = (level: string) => (message: string) => void lines.push(`${level}: ${message}`);
  const log = {
    name: 'GradGuard',
    trace: at('trace'),
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    append: (text: string) => void lines.push(`append: ${text}`),
    appendLine: (text: string) => void lines.push(`line: ${text}`),
    dispose: () => void lines.push('disposed'),
  } as unknown as vscode.LogOutputChannel;
  return { log, lines };
}

describe('the language client output', () => {
  it('logs a normal exit (code 0, a stop or restart) as info, not as an error', () => {
    const { log, lines } = recordingLog();
    const channel = clientOutputChannel(log);
    channel.appendLine('[Error - 10:04:01 AM] Server process exited with code 0.');
    assert.deepEqual(lines, ['info: Server process exited normally (code 0).']);
  });

  it('keeps a crash an error, and writes every client line at its own level', () => {
    const { log, lines } = recordingLog();
    const channel = clientOutputChannel(log);
    channel.appendLine('[Error - 10:04:01 AM] Server process exited with code 1.');
    channel.appendLine('[Info  - 10:04:02 AM] Connection to server got closed.');
    channel.appendLine('[Warn  - 10:04:03 AM] something odd');
    assert.deepEqual(lines, [
      'error: Server process exited with code 1.',
      'info: Connection to server got closed.',
      'warn: something odd',
    ]);
  });

  it("passes the server's own stderr text through, and leaves the log open when disposed", () => {
    const { log, lines } = recordingLog();
    const channel = clientOutputChannel(log);
    channel.append('2026-11-26 10:04:01 WARNING gradguard.lsp.state: x\n');
    channel.appendLine('plain text');
    channel.dispose();
    assert.deepEqual(lines, ['append: 2026-11-26 10:04:01 WARNING gradguard.lsp.state: x\n', 'line: plain text']);
  });

  it('recognises only the client prefix', () => {
    assert.equal(classifyClientLine('[Error] Server process exited with code 0.'), undefined);
    assert.equal(classifyClientLine('Server process exited with code 0.'), undefined);
  });
});
