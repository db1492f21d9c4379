export { routerDefinition, createRouterDefinition, type RouterDefinitionOptions } from './router.definition';
export { TicketIntakeService, type AnalyzeTicketRequest, type AnalyzeTicketAccepted } from './intake/ticket-intake.service';
export { RunEntity } from './persistence/run.entity';
export { ScenarioThreadEntity } from './persistence/scenario-thread.entity';
export { DeadlineSweeper, SCENARIO_DEADLINE_CODE } from './deadlines/deadline-sweeper';
export { DEFAULT_DEADLINES, type DeadlineOptions } from './router-options';
export { writeBackKey } from './write-back/write-back.service';
export { TimelineCollector, type CollectResult } from './collect-timelines/timeline-collector.service';
export { rankBriefs } from './reconcile-run/rank-briefs';
