// Imported first by main.ts: tracing must be registered before any other module loads.
import { startTelemetry } from '@aoc/telemetry';

startTelemetry({ serviceName: 'aoc-router' });
