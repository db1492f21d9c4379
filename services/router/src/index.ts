export { routerDefinition } from './router.definition';
export { TicketIntakeService, type AnalyzeTicketRequest, type AnalyzeTicketAccepted } from './intake/ticket-intake.service';
export { RunEntity } from './persistence/run.entity';
