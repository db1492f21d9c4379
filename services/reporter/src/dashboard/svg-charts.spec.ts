import { barChart, lineChart, stackedBarChart } from './svg-charts';

describe('barChart', () => {
  it('scales bar widths to the largest value and labels every bar with its exact value', () => {
    const svg = barChart('Verdicts', [
      { label: 'ai_better', value: 2, color: '#059669' },
      { label: 'human_better', value: 4, color: '#dc2626' },
      { label: 'not_compared', value: 0, color: '#94a3b8' },
    ]).value;
    expect(svg).toMatch(/^<svg class="chart" role="img" aria-label="Verdicts"/);
    expect(svg).toContain('width="165" height="18" rx="3" fill="#059669"><title>ai_better: 2</title>');
    expect(svg).toContain('width="330" height="18" rx="3" fill="#dc2626"><title>human_better: 4</title>');
    expect(svg).toContain('width="0" height="18" rx="3" fill="#94a3b8"><title>not_compared: 0</title>');
    expect(svg).not.toMatch(/<script|href=/);
  });

  it('escapes labels', () => {
    expect(barChart('Gaps', [{ label: '<script>x</script>', value: 1, color: '#000' }]).value).toContain('&lt;script&gt;x&lt;/script&gt;');
  });

  it('renders an empty state instead of an empty chart', () => {
    expect(barChart('Funnel', []).value).toBe('<p class="empty">No data for funnel.</p>');
    expect(barChart('Funnel', [{ label: 'a', value: 0, color: '#000' }]).value).toContain('class="empty"');
  });
});

describe('lineChart', () => {
  const pct = { yMax: 1, yFormat: (v: number) => `${Math.round(v * 100)}%` };

  it('plots one point per value and breaks the line where a day has no data', () => {
    const svg = lineChart('Success rate', ['11-18', '11-19', '11-20', '11-21'], [{ name: 'clinic', color: '#2563eb', values: [1, 0.5, null, 0] }], pct).value;
    // x spans 48..612 over 3 intervals, y spans 204 (0%) .. 12 (100%).
    expect(svg).toContain('<path d="M48,12 L236,108" fill="none" stroke="#2563eb" stroke-width="2"/>');
    expect(svg).toContain('<path d="M612,204" fill="none"');
    expect(svg.match(/<circle /g)).toHaveLength(3);
    expect(svg).toContain('<title>clinic 11-19: 50%</title>');
    expect(svg).toContain('>100%</text>');
    expect(svg).toContain('>11-21</text>');
  });

  it('centres a single day and draws a legend entry per series', () => {
    const svg = lineChart('Success rate', ['11-20'], [
      { name: 'clinic', color: '#2563eb', values: [0.9] },
      { name: 'prometheus', color: '#d97706', values: [null] },
    ], pct).value;
    expect(svg).toContain('<circle cx="330" cy="31.2" r="3.5" fill="#2563eb">');
    expect(svg).toContain('>prometheus</text>');
  });

  it('renders an empty state when no series has a value', () => {
    expect(lineChart('Success rate', ['11-20'], [{ name: 'clinic', color: '#000', values: [null] }], pct).value).toContain('No data for success rate.');
    expect(lineChart('Success rate', [], [], pct).value).toContain('class="empty"');
  });
});

describe('stackedBarChart', () => {
  it('stacks segments left to right, scaled to the largest total, and skips zero segments', () => {
    const svg = stackedBarChart('HTTP', [
      { label: 'clinic', segments: [{ name: '200', value: 3, color: '#0a0' }, { name: '500', value: 1, color: '#a00' }, { name: 'other', value: 0, color: '#999' }] },
      { label: 'manus', segments: [{ name: '200', value: 2, color: '#0a0' }, { name: '500', value: 0, color: '#a00' }, { name: 'other', value: 0, color: '#999' }] },
    ]).value;
    expect(svg).toContain('<rect x="130" y="8" width="315" height="20" fill="#0a0"><title>clinic 200: 3</title></rect><rect x="445" y="8" width="105" height="20" fill="#a00"><title>clinic 500: 1</title></rect>');
    expect(svg).not.toContain('clinic other: 0');
    expect(svg).toContain('<title>manus 200: 2</title>');
    expect(svg).toContain('>other</text>');
  });

  it('renders an empty state when every total is zero', () => {
    expect(stackedBarChart('HTTP', [{ label: 'clinic', segments: [{ name: '200', value: 0, color: '#0a0' }] }]).value).toContain('No data for http.');
  });
});
