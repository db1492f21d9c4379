export { judgeDefinition } from './judge.definition';
