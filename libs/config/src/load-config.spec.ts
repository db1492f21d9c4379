import { z } from 'zod';
import { ConfigError, baseConfigShape, describeConfig, loadConfig, secret } from './load-config';

const schema = z.object({ ...baseConfigShape, PORT: z.coerce.number().int().min(1).max(65535).default(3000), API_TOKEN: secret(z.string().min(8)) });

describe('loadConfig', () => {
  it('parses and defaults', () => {
    const cfg = loadConfig('router', schema, { API_TOKEN: 'abcdefgh', KAFKA_BROKERS: 'a:1, b:2' });
    expect(cfg.PORT).toBe(3000);
    expect(cfg.KAFKA_BROKERS).toEqual(['a:1', 'b:2']);
    expect(cfg.AOC_TRANSPORT).toBe('memory');
  });

  it('fails fast naming every bad key without echoing secret values', () => {
    let error: unknown;
    try {
      loadConfig('router', schema, { PORT: 'nope', API_TOKEN: 'short', AOC_TRANSPORT: 'carrier-pigeon' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as ConfigError).message;
    expect(message).toContain('PORT');
    expect(message).toContain('API_TOKEN');
    expect(message).toContain('AOC_TRANSPORT');
    expect(message).not.toContain('short');
  });

  it('masks secrets when described', () => {
    const cfg = loadConfig('router', schema, { API_TOKEN: 'supersecret', DATABASE_URL: 'postgres://u:p@127.0.0.1/db' });
    const shown = JSON.stringify(describeConfig(schema, cfg));
    expect(shown).not.toContain('supersecret');
    expect(shown).not.toContain('u:p@');
    expect(shown).toContain('"PORT":3000');
  });
});
