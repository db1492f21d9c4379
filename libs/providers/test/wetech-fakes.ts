import type { DashboardRow, DashboardSessionFactory, DashboardSessionRequest, DashboardViewRequest, DashboardViewResult } from '../src/connectors/dashboard-tidb-connector';
import type { WetechCredentials } from '../src/packages/wetech/wetech-credentials';

/** Logins of every profile the inventory uses; each one distinct so tests can see which was chosen. */
export const WETECH_TEST_CREDENTIALS: WetechCredentials = {
  default: { grafana: { username: 'oncall-ro', password: 'grafana-default-pw-1' }, dashboard: { username: 'dash-ro', password: 'dashboard-default-pw-1' } },
  'asia-production': { grafana: { username: 'oncall-ro', password: 'grafana-asia-prod-pw-2' } },
  'asia-saas01': { dashboard: { username: 'dash-saas01', password: 'dashboard-saas01-pw-3' } },
  'asia-saas02': { dashboard: { username: 'dash-saas02', password: 'dashboard-saas02-pw-4' } },
};

export const basic = (username: string, password: string) => `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;

export interface FakeSessionLog {
  request: DashboardSessionRequest;
  views: DashboardViewRequest[];
  closed: boolean;
}

/**
 * A dashboard driver without a browser: it answers views from a script and records what the
 * package asked for. Its storage state carries a token derived from the session number.
 */
export function fakeDashboard(answer: (view: DashboardViewRequest) => DashboardViewResult | Promise<DashboardViewResult>): { factory: DashboardSessionFactory; sessions: FakeSessionLog[] } {
  const sessions: FakeSessionLog[] = [];
  const factory: DashboardSessionFactory = async (request) => {
    const log: FakeSessionLog = { request, views: [], closed: false };
    sessions.push(log);
    const n = sessions.length;
    return {
      fetchView: async (view) => {
        log.views.push(view);
        return answer(view);
      },
      storageState: async () => ({ cookies: [], origins: [{ origin: request.origin, localStorage: [{ name: 'dashboard_auth_token', value: `token-${n}` }] }] }),
      loginCount: () => (request.storageState ? 0 : 1),
      close: async () => {
        log.closed = true;
      },
    };
  };
  return { factory, sessions };
}

/** Rows the way a dashboard page exposes them: digest plus every cell, SQL text and addresses included. */
export function pageRow(digest: string, cells: Record<string, string | number>): DashboardRow {
  return { digest, cells: Object.fromEntries(Object.entries(cells).map(([k, v]) => [k, String(v)])) };
}
