import { formatLeadingMechanism, readLeadingMechanism } from './leading-mechanism';

describe('leading mechanism line', () => {
  it('reads back what the router writes, inside a handoff', () => {
    const handoff = `**Evidence boundary:** x.\n${formatLeadingMechanism('moderate', 'CPU rose 2.5x.')}\n**Open link:** y`;
    expect(readLeadingMechanism(handoff)).toEqual({ strength: 'moderate', statement: 'CPU rose 2.5x.' });
    expect(readLeadingMechanism('**Leading mechanism:** locks')).toEqual({ strength: null, statement: 'locks' });
    expect(readLeadingMechanism('no such line')).toBeNull();
  });
});
