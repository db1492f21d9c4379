/**
 * The handoff's leading-mechanism line: written by the router, read by the judge (the cause an
 * answer claims) and the optimizer (the family it led with). One format, in one place.
 */
export interface LeadingMechanism {
  /** `strong`, `moderate`, `weak`, `undetermined`, or null when the line carries none. */
  strength: string | null;
  statement: string;
}

export function formatLeadingMechanism(strength: string, statement: string): string {
  return `**Leading mechanism (${strength}):** ${statement}`;
}

const LINE = /\*\*Leading mechanism(?:\s*\(([a-z]+)\))?:\*\*\s*(.+)/i;

/** The line of a handoff, or null without one. */
export function readLeadingMechanism(handoff: string): LeadingMechanism | null {
  const m = LINE.exec(handoff);
  return m ? { strength: m[1]?.toLowerCase() ?? null, statement: m[2].trim() } : null;
}
