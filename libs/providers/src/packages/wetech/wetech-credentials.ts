import { z } from 'zod';

/**
 * Credential profiles. The trusted target (its inventory entry) picks the profile; the caller
 * never names one. Asia production has its own Grafana login, the Asia SaaS regions their own
 * Dashboard login; everything else uses the default logins.
 */
export const WETECH_CREDENTIAL_PROFILES = ['default', 'asia-production', 'asia-saas01', 'asia-saas02'] as const;
export type WetechCredentialProfile = (typeof WETECH_CREDENTIAL_PROFILES)[number];

const Login = z
  .object({
    username: z.string().min(1).max(128),
    password: z.string().min(4).max(1024),
  })
  .strict();
export type WetechLogin = z.infer<typeof Login>;

export const WetechCredentialsSchema = z
  .object({
    default: z.object({ grafana: Login, dashboard: Login }).strict(),
    'asia-production': z.object({ grafana: Login }).strict().optional(),
    'asia-saas01': z.object({ dashboard: Login }).strict().optional(),
    'asia-saas02': z.object({ dashboard: Login }).strict().optional(),
  })
  .strict();
export type WetechCredentials = z.infer<typeof WetechCredentialsSchema>;

export interface ResolvedWetechLogins {
  profile: WetechCredentialProfile;
  grafana: WetechLogin;
  dashboard: WetechLogin;
}

/** The logins of one profile; a profile with its own login never silently falls back to the default one. */
export function loginsFor(profile: WetechCredentialProfile, credentials: WetechCredentials): ResolvedWetechLogins {
  switch (profile) {
    case 'default':
      return { profile, ...credentials.default };
    case 'asia-production': {
      const own = credentials['asia-production'];
      if (!own) throw new Error('credential profile asia-production is used by the inventory but not configured');
      return { profile, grafana: own.grafana, dashboard: credentials.default.dashboard };
    }
    case 'asia-saas01':
    case 'asia-saas02': {
      const own = credentials[profile];
      if (!own) throw new Error(`credential profile ${profile} is used by the inventory but not configured`);
      return { profile, grafana: credentials.default.grafana, dashboard: own.dashboard };
    }
  }
}

/** Every secret value of the configured profiles. */
export function credentialSecrets(credentials: WetechCredentials): string[] {
  const logins: (WetechLogin | undefined)[] = [
    credentials.default.grafana,
    credentials.default.dashboard,
    credentials['asia-production']?.grafana,
    credentials['asia-saas01']?.dashboard,
    credentials['asia-saas02']?.dashboard,
  ];
  return logins.filter((l): l is WetechLogin => l !== undefined).map((l) => l.password);
}
