import { FAILURE_MODES } from '../launcher/src/diagnosis-bench/lab-case';
import { loadVocabulary } from '../launcher/src/diagnosis-bench/lab';
import { sincePhrase, writeTicket } from './tickets';

const CUTOFF = Date.parse('2026-12-02T10:00:00Z');
const WINDOW = CUTOFF - 3600_000;

describe('customer tickets', () => {
  const vocabulary = loadVocabulary();

  it.each(FAILURE_MODES.map((m) => [m]))('%s: name the cluster and the symptom, never the mode or its vocabulary', (mode) => {
    for (let i = 0; i < 12; i++) {
      const t = writeTicket({ id: `case-${mode}-${i}`, key: 'LAB-1', mode, cluster: 'lab-pg-07', noticedMs: WINDOW + 20 * 60_000, windowStartMs: WINDOW, cutoffMs: CUTOFF });
      const text = `${t.ticket.title}\n${t.ticket.description}`.toLowerCase();
      expect(text).toContain('lab-pg-07');
      expect(text).not.toContain(mode.replace(/-/g, ' '));
      for (const w of vocabulary?.get(mode) ?? []) expect({ w, named: text.includes(w.toLowerCase()) }).toEqual({ w, named: false });
      expect(Date.parse(t.ticket.createdAt)).toBeLessThan(CUTOFF);
      expect(t.ticket.reporterRole).toBe('customer');
    }
  });

  it('names the onset to five minutes, or speaks vaguely of a fault already there', () => {
    expect(sincePhrase(Date.parse('2026-12-02T09:23:00Z'), WINDOW, 0)).toBe('since about 09:20 UTC');
    expect(sincePhrase(WINDOW - 60_000, WINDOW, 1)).toBe('since this morning');
    expect(sincePhrase(null, WINDOW, 0)).toBe('for the last hour or so');
  });
});
