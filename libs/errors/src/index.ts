export * from './aoc-error';
export * from './zod-issues';
