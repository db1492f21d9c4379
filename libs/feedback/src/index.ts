export * from './feedback.types';
export * from './feedback-command.parser';
export * from './feedback-source.policy';
export { bindFeedback } from './feedback-binding.binder';
export * from './answer-feedback.selector';
export * from './quality-projection.policy';
