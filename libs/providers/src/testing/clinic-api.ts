// A scripted Clinic HTTP API (metrics proxied to a real Prometheus), for tests and for recording
// the bundled Clinic examples.
export { startClinicFixture, type ClinicFixtureOptions, type FixtureCluster, type RunningClinicFixture } from '../../test/clinic-api-fixture';
