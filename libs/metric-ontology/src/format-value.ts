const round = (n: number, digits = 2) => {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
};

/**
 * A value in the unit its metric family uses, in words a customer reads: bytes in KiB/MiB/GiB,
 * percentages with `%`, seconds as ms or s, rates per second; a count or an unknown unit as a plain
 * number.
 */
export function formatValue(value: number | null, unit: string): string {
  if (value === null) return 'n/a';
  const abs = Math.abs(value);
  if (unit === 'bytes' || unit === 'bytes_per_second') {
    const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
    let v = abs;
    let i = 0;
    while (v >= 1024 && i < units.length - 1) {
      v /= 1024;
      i++;
    }
    return `${value < 0 ? '-' : ''}${round(v, v >= 100 ? 0 : 1)} ${units[i]}${unit === 'bytes_per_second' ? '/s' : ''}`;
  }
  if (unit === 'percent') return `${round(value, abs >= 10 ? 0 : 1)}%`;
  if (unit === 'ratio') return `${round(value * 100, 1)}%`;
  if (unit === 'seconds') return abs < 1 && abs > 0 ? `${round(value * 1000, 0)} ms` : `${round(value, 1)} s`;
  if (unit === 'per_second') return `${round(value, abs >= 100 ? 0 : 2)}/s`;
  return abs >= 10_000 ? Math.round(value).toLocaleString('en-US') : String(round(value, abs >= 100 ? 0 : 2));
}

