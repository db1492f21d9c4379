import { z } from 'zod';
import { ProviderError } from '../../core/provider-error';
import { WETECH_HOST_ALLOWLIST, WETECH_TARGETS, type WetechTarget } from './wetech-inventory.generated';

/** Wetech tickets are APID keys: `APID-` and a positive number without leading zeros. */
export const APID_TICKET_KEY = /^APID-[1-9][0-9]{0,8}$/;
export const ApidTicketKey = z.string().regex(APID_TICKET_KEY, 'must be an APID ticket key such as APID-29213');

export function isApidTicketKey(value: string): boolean {
  return APID_TICKET_KEY.test(value);
}

const byPair = new Map(WETECH_TARGETS.map((t) => [`${t.region}/${t.cluster}`, t]));
const allowedHosts = new Set(WETECH_HOST_ALLOWLIST);

/** The inventory entry of an exact region/cluster pair; anything else is refused before network use. */
export function wetechTarget(region: string, cluster: string): WetechTarget {
  const target = byPair.get(`${region}/${cluster}`);
  if (!target) throw new ProviderError('PROVIDER.TARGET_REJECTED', `region/cluster pair ${JSON.stringify(`${region}/${cluster}`).slice(0, 140)} is not in the Wetech inventory`);
  if (!allowedHosts.has(target.grafanaHost) || !allowedHosts.has(target.dashboardHost)) throw new ProviderError('PROVIDER.TARGET_REJECTED', 'target host is not on the Wetech allowlist');
  return target;
}

/** The target name used in results and references: `<region>/<cluster>`. */
export function wetechTargetName(target: Pick<WetechTarget, 'region' | 'cluster'>): string {
  return `${target.region}/${target.cluster}`;
}
