import { ConfigError } from '@aoc/config';
import { describeRoleModelConfig, loadAgentRuntimeConfig } from './agent-runtime.config';

describe('agent runtime configuration', () => {
  it('defaults every role to the built-in engine', () => {
    const config = loadAgentRuntimeConfig({});
    expect(config.judge).toEqual({ engine: 'builtin' });
    expect(config.scenario_router).toEqual({ engine: 'builtin' });
  });

  it('reads a per-role OpenAI-compatible engine with defaults for timeout and retries', () => {
    const config = loadAgentRuntimeConfig({
      AOC_MODEL_ENGINE_JUDGE: 'openai',
      AOC_MODEL_BASE_URL_JUDGE: 'http://127.0.0.1:9999/v1',
      AOC_MODEL_NAME_JUDGE: 'judge-large',
      AOC_MODEL_API_KEY_JUDGE: 'sk-config-secret-123456',
      AOC_MODEL_MAX_RETRIES_JUDGE: '4',
    });
    expect(config.judge).toEqual({ engine: 'openai', baseUrl: 'http://127.0.0.1:9999/v1', model: 'judge-large', apiKey: 'sk-config-secret-123456', timeoutMs: 60000, maxRetries: 4 });
    expect(config.evidence).toEqual({ engine: 'builtin' });
    expect(JSON.stringify(describeRoleModelConfig(config.judge!))).not.toContain('sk-config-secret');
  });

  it('fails fast naming every bad key, never echoing the secret', () => {
    let error: unknown;
    try {
      loadAgentRuntimeConfig({
        AOC_MODEL_ENGINE_JUDGE: 'openai',
        AOC_MODEL_API_KEY_JUDGE: 'sk-leak-me-not-987654',
        AOC_MODEL_TIMEOUT_MS_JUDGE: 'soon',
        AOC_MODEL_ENGINE_EVIDENCE: 'magic',
        AOC_MODEL_ENGNE_ROUTER: 'openai',
      });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as ConfigError).message;
    for (const key of ['AOC_MODEL_BASE_URL_JUDGE', 'AOC_MODEL_NAME_JUDGE', 'AOC_MODEL_TIMEOUT_MS_JUDGE', 'AOC_MODEL_ENGINE_EVIDENCE', 'AOC_MODEL_ENGNE_ROUTER']) {
      expect(message).toContain(key);
    }
    expect(message).not.toContain('sk-leak-me-not');
  });

  it('rejects a base URL that is not http(s)', () => {
    expect(() => loadAgentRuntimeConfig({ AOC_MODEL_ENGINE_JUDGE: 'openai', AOC_MODEL_BASE_URL_JUDGE: 'ftp://x', AOC_MODEL_NAME_JUDGE: 'm' })).toThrow(/AOC_MODEL_BASE_URL_JUDGE/);
  });

  it('parses only the roles asked for', () => {
    expect(Object.keys(loadAgentRuntimeConfig({}, ['judge']))).toEqual(['judge']);
  });
});
