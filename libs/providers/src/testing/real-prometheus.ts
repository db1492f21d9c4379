// A real Prometheus with backfilled series, for tests and for recording the bundled examples.
export { startPrometheus, toOpenMetrics, type FixtureSeries, type RunningPrometheus } from '../../test/prometheus-fixture';
