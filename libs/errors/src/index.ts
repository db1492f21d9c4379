export * from './aoc-error';
