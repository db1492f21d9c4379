// A Grafana-like datasource proxy in front of a real Prometheus and a TiDB-Dashboard-like site
// (driven by system Chromium), for tests and for recording the bundled Manus and Wetech examples.
export { startGrafanaProxy, type ProxyDatasource, type RunningGrafanaProxy } from '../../test/dashboard-grafana-proxy';
export { startTidbDashboard, type RunningTidbDashboard, type SlowQueryFixtureRow, type StatementFixtureRow, type TidbDashboardFixture, type TopSqlFixtureRow } from '../../test/dashboard-tidb-fixture';
export { basic as basicAuthorization, WETECH_TEST_CREDENTIALS } from '../../test/wetech-fakes';
