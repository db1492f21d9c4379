import { escapeJiraMarkup } from './jira-markup';

describe('Jira markup in written-back text', () => {
  it('neutralises images, links, mentions and macros from the customer\'s words', () => {
    const title = 'slow !https://evil.example/pixel.png! see [here|https://evil.example] cc [~admin] {html}<script>x</script>{html}';
    const out = escapeJiraMarkup(`Thanks for reporting "${title}"`);
    expect(out).not.toMatch(/(^|[^\\])[[\]{}!|]/);
    expect(out).toContain('\\!https://evil.example/pixel.png\\!');
    expect(out).toContain('\\[here\\|https://evil.example\\]');
    expect(out.replace(/\\(.)/g, '$1')).toBe(`Thanks for reporting "${title}"`);
  });

  it('leaves plain answers and their Markdown emphasis alone', () => {
    expect(escapeJiraMarkup('**Auto-oncall analysis** (run r1, decision `internal_only`)\n- p99 rose to 812 ms at 10:42 UTC')).toBe('**Auto-oncall analysis** (run r1, decision `internal_only`)\n- p99 rose to 812 ms at 10:42 UTC');
  });
});
