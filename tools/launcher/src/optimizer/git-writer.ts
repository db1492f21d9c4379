import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { CandidateWriter } from '@aoc/service-optimizer';

const git = (dir: string, ...args: string[]) => execFileSync('git', ['-C', dir, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();

/**
 * Writes an accepted candidate into the operator's git working copy with the plain git CLI: a
 * branch `aoc/<focus>/attempt-<n>` from the current HEAD, the changed data files, one commit.
 * The working copy's own branch is left as it was; nothing is pushed, merged or deployed. Writing
 * the same attempt again finds the branch and returns its commit.
 */
export function gitCandidateWriter(workingCopy: string, author = { name: 'auto-oncall optimizer', email: 'optimizer@auto-oncall.invalid' }): CandidateWriter {
  return {
    write: ({ focusId, attempt, files, message }) => {
      const branch = `aoc/${focusId}/attempt-${attempt}`;
      const existing = (() => {
        try {
          return git(workingCopy, 'rev-parse', '--verify', '--quiet', `refs/heads/${branch}`);
        } catch {
          return '';
        }
      })();
      if (existing) return Promise.resolve({ branch, sha: existing });
      const base = git(workingCopy, 'rev-parse', 'HEAD');
      // A separate worktree keeps the operator's checkout (and its uncommitted files) untouched.
      const tree = join(workingCopy, '.git', 'aoc-candidates', `${focusId}-${attempt}`);
      git(workingCopy, 'worktree', 'add', '--quiet', '-b', branch, tree, base);
      try {
        for (const [path, text] of files) {
          mkdirSync(dirname(join(tree, path)), { recursive: true });
          writeFileSync(join(tree, path), text);
        }
        git(tree, 'add', '--', ...files.keys());
        git(tree, '-c', `user.name=${author.name}`, '-c', `user.email=${author.email}`, 'commit', '--quiet', '--no-verify', '-m', message);
        return Promise.resolve({ branch, sha: git(tree, 'rev-parse', 'HEAD') });
      } finally {
        git(workingCopy, 'worktree', 'remove', '--force', tree);
      }
    },
  };
}
