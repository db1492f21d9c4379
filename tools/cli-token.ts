import { ROLES, TokenStore, createAuthDataSource, migrateAuthStore, type TokenSummary } from '@aoc/auth';
import { z } from 'zod';

// `aoc token create|list|revoke`: API tokens in the credential store of a deployment's database.

const DURATION = /^(\d{1,5})([hd])$/;

export const TokenArgs = z.discriminatedUnion('action', [
  z.object({
    action: z.literal('create'),
    database: z.string().url(),
    role: z.enum(ROLES),
    tenant: z.string().min(1).max(100),
    name: z.string().min(1).max(100).default('cli'),
    expiresIn: z.string().regex(DURATION, 'a duration like 12h or 90d').optional(),
  }),
  z.object({ action: z.literal('list'), database: z.string().url() }),
  z.object({ action: z.literal('revoke'), database: z.string().url(), id: z.string().regex(/^[0-9a-f]{12}$/, 'a token id (12 hex characters, see `aoc token list`)') }),
]);
export type TokenArgs = z.output<typeof TokenArgs>;

function value(args: readonly string[], name: string): string | undefined {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
}

const FLAGS: Record<string, string> = { database: '--database', role: '--role', tenant: '--tenant', name: '--name', expiresIn: '--expires-in', id: '<id>' };

/** Parses `create --role R --tenant T [--name N] [--expires-in 90d]`, `list`, `revoke <id>`; `--database` or DATABASE_URL. */
export function parseTokenArgs(args: readonly string[], env: Record<string, string | undefined> = process.env): TokenArgs {
  const [action, ...rest] = args;
  const parsed = TokenArgs.safeParse({
    action,
    database: value(rest, '--database') ?? env['DATABASE_URL'],
    role: value(rest, '--role'),
    tenant: value(rest, '--tenant'),
    name: value(rest, '--name'),
    expiresIn: value(rest, '--expires-in'),
    id: rest[0],
  });
  if (!parsed.success) {
    throw new Error(parsed.error.issues.map((i) => `${i.path[0] === 'database' ? '--database (or DATABASE_URL)' : (FLAGS[String(i.path[0])] ?? 'action (create, list or revoke)')}: ${i.message}`).join('; '));
  }
  return parsed.data;
}

export function expiryOf(expiresIn: string | undefined, now: Date): Date | null {
  if (!expiresIn) return null;
  const [, n, unit] = DURATION.exec(expiresIn) as RegExpExecArray;
  return new Date(now.getTime() + Number(n) * (unit === 'd' ? 86_400_000 : 3_600_000));
}

/** Runs one token command; returns the lines to print. The secret is printed once, at creation. */
export async function runTokenCommand(args: TokenArgs, now: Date = new Date()): Promise<string[]> {
  await migrateAuthStore(args.database);
  const ds = createAuthDataSource(args.database);
  await ds.initialize();
  try {
    const store = new TokenStore(ds);
    if (args.action === 'create') {
      const { token, summary } = await store.create({ name: args.name, role: args.role, tenant: args.tenant, createdBy: 'cli', expiresAt: expiryOf(args.expiresIn, now) });
      return [`token ${summary.id} created (${summary.role}, tenant ${summary.tenant}, ${summary.expiresAt ? `expires ${summary.expiresAt}` : 'no expiry'})`, `secret, shown once: ${token}`];
    }
    if (args.action === 'list') return (await store.list()).map(describeToken);
    return [(await store.revoke(args.id)) ? `token ${args.id} revoked` : `no token ${args.id}`];
  } finally {
    await ds.destroy();
  }
}

function describeToken(t: TokenSummary): string {
  const state = t.revokedAt ? `revoked ${t.revokedAt}` : t.expiresAt ? `expires ${t.expiresAt}` : 'no expiry';
  return `${t.id}  ${t.role.padEnd(8)} tenant=${t.tenant}  ${t.name}  created ${t.createdAt}  ${state}  last used ${t.lastUsedAt ?? 'never'}`;
}
