import { z } from 'zod';
import { clipAllTo, clipTo, elementOf, maxItemsOf, maxLengthOf } from './limits';
import { LocalCausalBriefV1 } from './topics/diagnosis-handoff-consumed/diagnosis-handoff-consumed.schema';

describe('limits read from the schemas', () => {
  it('reads string and array maxima through optional, nullable and default wrappers', () => {
    expect(maxLengthOf(z.string().min(1).max(500))).toBe(500);
    expect(maxLengthOf(z.string().max(300).nullable().optional())).toBe(300);
    expect(maxItemsOf(z.array(z.string()).max(12).default([]))).toBe(12);
    expect(maxLengthOf(elementOf(z.array(z.string().max(40)).max(3)))).toBe(40);
  });

  it('follows the contract: the brief takes four observations of 500 characters', () => {
    const observations = LocalCausalBriefV1.shape.observations;
    expect(maxItemsOf(observations)).toBe(4);
    const clipped = clipAllTo(observations, Array.from({ length: 6 }, () => 'x'.repeat(900)));
    expect(clipped).toHaveLength(4);
    expect(clipped.every((o) => o.length === 500 && o.endsWith('…'))).toBe(true);
    expect(LocalCausalBriefV1.shape.observations.safeParse(clipped).success).toBe(true);
    expect(clipTo(LocalCausalBriefV1.shape.leadingMechanism.shape.statement, 'short')).toBe('short');
  });

  it('refuses a schema without a maximum, naming what is missing, rather than guess', () => {
    expect(() => maxLengthOf(z.string())).toThrow(/declares no maximum length/);
    expect(() => maxItemsOf(z.array(z.string()))).toThrow(/declares no maximum number of items/);
    expect(() => maxLengthOf(z.number())).toThrow(/needs a string schema, got number/);
  });
});
