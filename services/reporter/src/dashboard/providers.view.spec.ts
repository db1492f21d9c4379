import { providerHealthFixture } from './dashboard.fixtures';
import { httpTotals } from './provider-health.fragments';
import { renderProviders } from './providers.view';

describe('renderProviders', () => {
  const range = { from: '2026-11-18', to: '2026-11-20' };

  it('charts the success rate per Shanghai day per provider, with a gap where a provider has no data', () => {
    const page = renderProviders(range, providerHealthFixture());
    expect(page).toContain('<g class="series" data-series="clinic">');
    expect(page).toContain('<title>clinic 11-19: 90%</title>');
    expect(page).toContain('<title>clinic 11-20: 100%</title>');
    expect(page).toContain('<title>prometheus 11-20: 50%</title>');
    expect(page).not.toContain('clinic 11-18');
    expect(page).toContain('>11-18</text>');
  });

  it('sums HTTP attempts by status class per provider', () => {
    expect(httpTotals(providerHealthFixture())).toEqual([
      { provider: 'clinic', status200: 13, status400: 0, status500: 2, status502: 0, other: 0, total: 15 },
      { provider: 'prometheus', status200: 1, status400: 1, status500: 0, status502: 1, other: 0, total: 3 },
    ]);
    const page = renderProviders(range, providerHealthFixture());
    expect(page).toContain('<tr><td>clinic</td><td class="num">13</td><td class="num">0</td><td class="num">2</td><td class="num">0</td><td class="num">0</td><td class="num">15</td></tr>');
    expect(page).toContain('<title>clinic 500: 2</title>');
    expect(page).toContain('<title>prometheus 502: 1</title>');
  });

  it('keeps the range in the form and has empty states', () => {
    const page = renderProviders(range, []);
    expect(page).toContain('name="from" value="2026-11-18"');
    expect(page).toContain('No data for query success rate per day.');
    expect(page).toContain('No data for http attempts by status class.');
    expect(page).toContain('No HTTP attempts recorded.');
    expect(page).toContain('No provider queries in this period.');
  });
});
