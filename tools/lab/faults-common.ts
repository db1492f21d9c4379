// Incident lab recorder: the fault shapes both engines share, over a minimal session interface
// (pg's Client and mysql2's promise Connection both fit it).
import { all, loop, rand, sleep, type Handle } from './db';

export type Intensity = 'low' | 'high';

export interface Session {
  query(sql: string, params?: unknown[]): Promise<unknown>;
  end(): Promise<void>;
}

/** A statement and its parameters, in the engine's placeholder style. */
export type Statement = [string, unknown[]];

const endAll = (sessions: readonly Session[]) => Promise.all(sessions.map((s) => s.end().catch(() => undefined)));

/** Sessions opened at a steady rate and never closed (a pool leak): 1/s up to 50 (low) or 3/s up to 70 (high, past the limit); every other one holds a transaction open. */
export function leakSessions(open: () => Promise<Session>, intensity: Intensity, idleInTransaction: Statement[]): Handle {
  const target = intensity === 'high' ? 70 : 50;
  const perSecond = intensity === 'high' ? 3 : 1;
  const held: Session[] = [];
  let stopped = false;
  const done = (async () => {
    while (!stopped && held.length < target) {
      for (let i = 0; i < perSecond && held.length < target; i++) {
        try {
          const s = await open();
          if (held.length % 2 === 0) for (const [sql, params] of idleInTransaction) await s.query(sql, params);
          held.push(s);
        } catch {
          // The server refuses once it is full: the leak keeps trying, as the application does.
        }
      }
      await sleep(1000);
    }
  })();
  return {
    stop: async () => {
      stopped = true;
      await done;
      await endAll(held);
    },
  };
}

/** `n` idle sessions opened at once and held (a red herring: a burst well below the limit). */
export async function holdSessions(open: () => Promise<Session>, n: number): Promise<Handle> {
  const held: Session[] = [];
  for (let i = 0; i < n; i++) held.push(await open());
  return { stop: async () => void (await endAll(held)) };
}

/** One transaction takes row locks (`hold`) and keeps them; 4 (low) or 12 (high) updaters run `wait` behind it, each on a new session. */
export async function lockQueue(open: () => Promise<Session>, intensity: Intensity, hold: Statement, wait: () => Statement): Promise<Handle> {
  const holder = await open();
  await holder.query('BEGIN');
  await holder.query(...hold);
  const waiters = Array.from({ length: intensity === 'high' ? 12 : 4 }, () =>
    loop(async () => {
      const s = await open();
      try {
        await s.query(...wait());
      } finally {
        await s.end().catch(() => undefined);
      }
    }, 200),
  );
  return {
    stop: async () => {
      const stops = waiters.map((w) => w.stop());
      await holder.query('COMMIT').catch(() => undefined);
      await holder.end().catch(() => undefined);
      await Promise.all(stops);
    },
  };
}

/** 1 (low) or 4 (high) pairs of transactions updating two rows in opposite orders, 300 ms apart. */
export function deadlockPairs(open: () => Promise<Session>, intensity: Intensity, update: (id: number) => Statement): Handle {
  const handles: Handle[] = [];
  for (let p = 0; p < (intensity === 'high' ? 4 : 1); p++) {
    for (const [first, second] of [
      [2 * p + 1, 2 * p + 2],
      [2 * p + 2, 2 * p + 1],
    ]) {
      let session: Session | null = null;
      handles.push(
        loop(async () => {
          session ??= await open();
          const s = session;
          try {
            await s.query('BEGIN');
            await s.query(...update(first));
            await sleep(300);
            await s.query(...update(second));
            await s.query('COMMIT');
          } catch (error) {
            await s.query('ROLLBACK').catch(() => undefined);
            throw error;
          }
          await sleep(rand(200, 800));
        }, 700),
      );
    }
  }
  return all(handles);
}

/** 6 (low) or 16 (high) sessions update one row inside a transaction that does a little more work. */
export function hotRow(open: () => Promise<Session>, intensity: Intensity, update: string): Handle {
  return all(
    Array.from({ length: intensity === 'high' ? 16 : 6 }, () => {
      let session: Session | null = null;
      return loop(async () => {
        session ??= await open();
        await session.query('BEGIN');
        await session.query(update);
        await sleep(50);
        await session.query('COMMIT');
      });
    }),
  );
}

/** `n` loops of one statement run through `run` (a CPU-heavy report, a sort that spills, ...). */
export function statementLoops(n: number, step: () => Promise<unknown>, pauseOnErrorMs = 500): Handle {
  return all(Array.from({ length: n }, () => loop(async () => void (await step()), pauseOnErrorMs)));
}
