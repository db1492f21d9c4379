// A real Prometheus with backfilled series, for tests and for recording the bundled examples.
export { servePrometheus, startPrometheus, toOpenMetrics, type FixtureSeries, type RunningPrometheus, type ServedPrometheus } from '../../test/prometheus-fixture';
