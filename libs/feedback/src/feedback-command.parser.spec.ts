import fc from 'fast-check';
import { parseFeedbackCommand } from './feedback-command.parser';
import type { FeedbackAction } from './feedback.types';

describe('parseFeedbackCommand', () => {
  describe('accepted forms', () => {
    it.each([
      ['colon', '/ao revise: the owner is wrong', 'revise', 'the owner is wrong'],
      ['colon without space', '/ao revise:the owner is wrong', 'revise', 'the owner is wrong'],
      ['space before the colon', '/ao revise : the owner is wrong', 'revise', 'the owner is wrong'],
      ['full-width colon', '/ao revise：负责人不对', 'revise', '负责人不对'],
      ['dot', '/ao wrong. cites the wrong cluster', 'wrong', 'cites the wrong cluster'],
      ['dot without space', '/ao wrong.cites the wrong cluster', 'wrong', 'cites the wrong cluster'],
      ['full-width full stop', '/ao wrong。集群不对', 'wrong', '集群不对'],
      ['full-width full stop and space', '/ao wrong。 集群不对', 'wrong', '集群不对'],
      ['plain space (older comments)', '/ao revise missing the TiKV side', 'revise', 'missing the TiKV side'],
      ['tab', '/ao revise\tmissing the TiKV side', 'revise', 'missing the TiKV side'],
      ['ideographic space typed by a CJK input method', '/ao\u3000revise\u3000缺少 TiKV', 'revise', '缺少 TiKV'],
      ['no-break space', '/ao\u00a0accept\u00a0ok', 'accept', 'ok'],
      ['several spaces before the action', '/ao   human', 'human', ''],
      ['end of line', '/ao accept', 'accept', ''],
      ['separator then nothing', '/ao accept:', 'accept', ''],
      ['dot then nothing', '/ao accept.', 'accept', ''],
      ['trailing spaces', '/ao accept   ', 'accept', ''],
    ] as const)('%s', (_form, body, action, reason) => {
      expect(parseFeedbackCommand(body)).toEqual({ action, reason });
    });

    it.each(['accept', 'revise', 'wrong', 'human'] as const)('every action: %s', (action) => {
      expect(parseFeedbackCommand(`/ao ${action}: why`)).toEqual({ action, reason: 'why' });
    });
  });

  describe('reason', () => {
    it('takes the rest of the line and every following line, trimmed, newlines kept', () => {
      const body = '/ao revise: two problems\n- wrong owner\n\n- no TiKV evidence\n  indented detail  \n\n';
      expect(parseFeedbackCommand(body)).toEqual({ action: 'revise', reason: 'two problems\n- wrong owner\n\n- no TiKV evidence\n  indented detail' });
    });

    it('starts on the next line when the command line has none', () => {
      expect(parseFeedbackCommand('/ao wrong\n\nThe region is not hot; it is GC.')).toEqual({ action: 'wrong', reason: 'The region is not hot; it is GC.' });
      expect(parseFeedbackCommand('/ao wrong:\nsee below\nmore')).toEqual({ action: 'wrong', reason: 'see below\nmore' });
    });

    it('normalises CRLF and lone CR to LF', () => {
      expect(parseFeedbackCommand('/ao revise: a\r\nb\r\n\r\nc\r\n')).toEqual({ action: 'revise', reason: 'a\nb\n\nc' });
      expect(parseFeedbackCommand('/ao revise\rb')).toEqual({ action: 'revise', reason: 'b' });
    });

    it('keeps separators that appear inside the reason', () => {
      expect(parseFeedbackCommand('/ao revise: see /ao docs: step 2. then retry。')).toEqual({ action: 'revise', reason: 'see /ao docs: step 2. then retry。' });
      expect(parseFeedbackCommand('/ao revise:: doubled')).toEqual({ action: 'revise', reason: ': doubled' });
    });

    it('keeps a quoted /ao line below the command as part of the reason', () => {
      expect(parseFeedbackCommand('/ao wrong: not this\n> /ao accept')).toEqual({ action: 'wrong', reason: 'not this\n> /ao accept' });
    });
  });

  describe('leading whitespace', () => {
    it('ignores blank lines, indentation, a BOM and zero-width characters before the command', () => {
      expect(parseFeedbackCommand('\n\n   \t/ao accept: fine\n')).toEqual({ action: 'accept', reason: 'fine' });
      expect(parseFeedbackCommand('\r\n  /ao accept')).toEqual({ action: 'accept', reason: '' });
      expect(parseFeedbackCommand('\ufeff/ao accept')).toEqual({ action: 'accept', reason: '' });
      expect(parseFeedbackCommand('\u200b/ao accept')).toEqual({ action: 'accept', reason: '' });
    });
  });

  describe('rejected (null)', () => {
    it.each([
      ['empty', ''],
      ['blank', '  \n\t '],
      ['prose', 'Thanks, looks good'],
      ['/ao alone', '/ao'],
      ['/ao and spaces', '/ao   '],
      ['/ao then a newline and an action', '/ao\naccept'],
      ['unknown action', '/ao approve: yes'],
      ['unknown action (help)', '/ao help'],
      ['no space after /ao', '/aoaccept'],
      ['prefix is longer than /ao', '/aox accept'],
      ['prefix /aoc', '/aoc accept'],
      ['no leading slash', 'ao accept'],
      ['double slash', '//ao accept'],
      ['colon between /ao and action', '/ao:accept'],
      ['word continues: acceptable', '/ao  acceptable'],
      ['word continues: accepted', '/ao accepted'],
      ['word continues: wrongly', '/ao wrongly'],
      ['word continues: humans', '/ao humans'],
      ['hyphen', '/ao wrong-ish answer'],
      ['comma', '/ao revise, later'],
      ['exclamation', '/ao accept!'],
      ['upper-case action', '/ao ACCEPT'],
      ['capitalised action', '/ao Accept: fine'],
      ['upper-case /AO', '/AO accept'],
      ['capitalised /Ao', '/Ao accept'],
      ['inline code', '`/ao accept`'],
      ['code fence', '```\n/ao accept\n```'],
      ['Jira code block', '{code}\n/ao accept\n{code}'],
      ['markdown quote', '> /ao accept'],
      ['bold', '**/ao accept**'],
      ['list item', '- /ao accept'],
      ['mention before the command', '@bot /ao accept'],
      ['command on the second line', 'Hi team,\n/ao wrong: bad owner'],
      ['command after a paragraph', 'Reviewed the answer.\n\n/ao accept'],
    ])('%s', (_why, body) => {
      expect(parseFeedbackCommand(body)).toBeNull();
    });
  });

  describe('properties', () => {
    const action = fc.constantFrom<FeedbackAction>('accept', 'revise', 'wrong', 'human');
    const separator = fc.constantFrom(':', '：', '.', '。', ' ', ': ', '. ', '。 ', '\t', ' : ');
    // Reason text that neither starts with a separator nor carries surrounding whitespace.
    const reasonLine = fc.string({ minLength: 1, maxLength: 30 }).map((s) => s.replace(/[\r\n]/g, ' ').trim()).filter((s) => s.length > 0 && !/^[:：.。]/.test(s));
    const followingLines = fc.array(fc.string({ maxLength: 20 }).map((s) => s.replace(/[\r\n]/g, ' ')), { maxLength: 4 });

    it('recovers the action and the trimmed reason, whatever the separator and line endings', () => {
      fc.assert(
        fc.property(action, separator, reasonLine, followingLines, fc.constantFrom('\n', '\r\n'), fc.constantFrom('', '  ', '\n \n'), (a, sep, first, rest, eol, lead) => {
          const body = `${lead}/ao ${a}${sep}${first}${rest.map((l) => `${eol}${l}`).join('')}`;
          const expected = [first, ...rest].join('\n').trim();
          expect(parseFeedbackCommand(body)).toEqual({ action: a, reason: expected });
        }),
      );
    });

    it('never parses a body whose first non-blank line does not start with /ao and a space', () => {
      // Anything whose first visible text is not "/ao" plus whitespace, including exotic code units.
      const garbage = fc
        .oneof(fc.string({ maxLength: 40 }), fc.string({ unit: 'binary', maxLength: 40 }))
        .filter((s) => {
          const visible = s.replace(/^[\s\u200B-\u200D\u2060\uFEFF]+/, '');
          return visible.length > 0 && !/^\/ao\s/.test(visible);
        });
      fc.assert(
        fc.property(garbage, action, (prefix, a) => {
          expect(parseFeedbackCommand(`${prefix}\n/ao ${a}: reason`)).toBeNull();
        }),
      );
    });

    it('never parses an action written in another case', () => {
      fc.assert(
        fc.property(action, fc.array(fc.boolean(), { minLength: 6, maxLength: 6 }), (a, upper) => {
          const cased = [...a].map((ch, i) => (upper[i] ? ch.toUpperCase() : ch)).join('');
          fc.pre(cased !== a);
          expect(parseFeedbackCommand(`/ao ${cased}: reason`)).toBeNull();
        }),
      );
    });
  });
});
