// Process management shared by the chaos suite (chaos.ts) and the scale benchmark
// (tools/scale/scale.ts): commands run to a log file, ports and probes, the local Postgres and
// Kafka, and one role replica as a process from the build, restarted when it dies on its own.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync, readdirSync, writeSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { join, resolve } from 'node:path';
import type { Role } from '@aoc/contracts';
import { holdsHumanAnswer } from '../launcher/src/human-answer';

export const ROOT = resolve(__dirname, '..', '..');
const EXAMPLES_DIR = join(ROOT, 'services', 'router', 'examples', 'tickets');

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, Math.max(0, ms)));

/** Runs a command to completion; output goes to a log file (never to the console). */
export function run(cmd: string, args: string[], logFile: string, env: Record<string, string | undefined> = process.env): Promise<number> {
  return new Promise((resolveRun) => {
    const fd = openSync(logFile, 'a');
    writeSync(fd, `\n===== ${new Date().toISOString()} ${cmd} ${args.join(' ')}\n`);
    const child = spawn(cmd, args, { cwd: ROOT, env, stdio: ['ignore', fd, fd] });
    child.on('error', () => resolveRun(127));
    child.on('exit', (code) => {
      closeSync(fd);
      resolveRun(code ?? 1);
    });
  });
}

export async function must(what: string, code: Promise<number>, logFile: string): Promise<void> {
  if ((await code) !== 0) throw new Error(`${what} failed; see ${logFile}`);
}

export function portOpen(port: number): Promise<boolean> {
  return new Promise((resolvePort) => {
    const socket = connect({ host: '127.0.0.1', port, timeout: 2000 });
    socket.once('connect', () => (socket.end(), resolvePort(true)));
    socket.once('error', () => resolvePort(false));
    socket.once('timeout', () => (socket.destroy(), resolvePort(false)));
  });
}

export function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as { port: number }).port;
      server.close(() => resolvePort(port));
    });
  });
}

export function pgReady(): boolean {
  return spawnSync('pg_isready', ['-q', '-h', '127.0.0.1', '-p', '5432', '-t', '2']).status === 0;
}

export function pgVersion(): string {
  const versions = existsSync('/etc/postgresql') ? readdirSync('/etc/postgresql').sort((a, b) => Number(a) - Number(b)) : [];
  if (versions.length === 0) throw new Error('no Debian PostgreSQL cluster under /etc/postgresql');
  return versions[versions.length - 1];
}

/** `export KEY=value` lines of deploy/local/.kafka/credentials.env. */
export function kafkaCredentials(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of readFileSync(join(ROOT, 'deploy', 'local', '.kafka', 'credentials.env'), 'utf8').split('\n')) {
    const m = /^export ([A-Z0-9_]+)=(.*)$/.exec(line.trim());
    if (m) out[m[1]] = m[2].replace(/^'(.*)'$/, '$1');
  }
  return out;
}

export async function waitFor<T>(what: string, timeoutMs: number, probe: () => Promise<T | undefined>, everyMs = 500): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe().catch(() => undefined);
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${Math.round(timeoutMs / 1000)} s waiting for ${what}`);
    await sleep(everyMs);
  }
}

/**
 * One replica of a role as a process from the build, restarted like an orchestrator would when it
 * dies on its own. Replicas of a role share its consumer groups (same client id and group ids);
 * each has its own port and log file.
 */
export class RoleProcess {
  child: ChildProcess | null = null;
  kills = 0;
  starts = 0;
  unplanned = 0;
  private expectExit = false;
  private stopping = false;

  constructor(
    readonly role: Role,
    /** 0-based; the name says `role#<replica+1>` when the role has more than one. */
    readonly replica: number,
    readonly name: string,
    readonly port: number,
    private readonly env: Record<string, string>,
    readonly logFile: string,
    private readonly notify: (line: string) => void,
  ) {}

  get pid(): number | null {
    return this.child?.pid ?? null;
  }

  start(extra: Record<string, string> = {}): void {
    this.expectExit = false;
    this.starts++;
    const fd = openSync(this.logFile, 'a');
    writeSync(fd, `\n===== ${new Date().toISOString()} start #${this.starts}${Object.keys(extra).length ? ` (${Object.keys(extra).join(', ')})` : ''}\n`);
    const child = spawn(process.execPath, ['--enable-source-maps', join(ROOT, 'dist', 'services', this.role, 'main.js')], { cwd: ROOT, env: { ...this.env, ...extra }, stdio: ['ignore', fd, fd] });
    closeSync(fd);
    this.child = child;
    child.on('exit', (code, signal) => {
      if (this.child === child) this.child = null;
      if (this.expectExit || this.stopping) return;
      this.unplanned++;
      this.notify(`${this.name} exited on its own (${signal ?? `code ${code}`}); restarting it`);
      setTimeout(() => {
        if (!this.stopping && !this.child) this.start();
      }, 1000);
    });
  }

  /** SIGKILL: no shutdown hook runs. */
  async kill(): Promise<void> {
    const child = this.child;
    if (!child) return;
    this.expectExit = true;
    this.kills++;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await exited;
  }

  /** No more restarts (the run is ending; a Ctrl-C reaches the roles too). */
  halt(): void {
    this.stopping = true;
  }

  async stop(timeoutMs = 20_000): Promise<void> {
    this.stopping = true;
    const child = this.child;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    await exited;
    clearTimeout(timer);
  }

  async ready(): Promise<boolean> {
    if (!this.child) return false;
    const res = await fetch(`http://127.0.0.1:${this.port}/readyz`, { signal: AbortSignal.timeout(3000) }).catch(() => null);
    return res?.status === 200;
  }

  log(): string {
    return existsSync(this.logFile) ? readFileSync(this.logFile, 'utf8') : '';
  }
}

export interface Example {
  body: Record<string, unknown> & { ticket: { key: string; comments?: never[] }; cutoff?: string | null };
  expectJudged: boolean;
}

/** The router's bundled example tickets, and whether the Judge should judge each (it holds a human answer). */
export function loadExamples(): Example[] {
  return readdirSync(EXAMPLES_DIR)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => {
      const raw = JSON.parse(readFileSync(join(EXAMPLES_DIR, f), 'utf8')) as Example['body'] & { description?: string };
      delete raw.description;
      return { body: raw, expectJudged: holdsHumanAnswer(raw.ticket, raw.cutoff ?? null) };
    });
}
