// Prometheus metrics: counters, gauges and fixed-bucket histograms, written in the text exposition
// format 0.0.4. Recording is a few additions on preallocated numbers (no allocation, no label
// lookup: a labelled series is a child object taken once, where the code is wired); gauges that
// mirror node state are read by a callback at scrape time only.

type Labels = Readonly<Record<string, string>>;

function escapeLabel(v: string): string {
  return v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
}

function labelText(labels: Labels, extra?: string): string {
  const parts = Object.entries(labels).map(([k, v]) => `${k}="${escapeLabel(v)}"`);
  if (extra !== undefined) parts.push(extra);
  return parts.length === 0 ? '' : `{${parts.join(',')}}`;
}

function num(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return '+Inf';
  if (v === -Infinity) return '-Inf';
  return String(v);
}

interface Family {
  readonly name: string;
  readonly help: string;
  readonly type: 'counter' | 'gauge' | 'histogram';
  write(lines: string[]): void;
}

export class Counter {
  value = 0;

  constructor(readonly labels: Labels) {}

  inc(by = 1): void {
    this.value += by;
  }
}

export class Histogram {
  /** Per bucket (not cumulative; summed when written), the last one +Inf. */
  readonly counts: Float64Array;
  sum = 0;
  count = 0;

  constructor(
    readonly labels: Labels,
    readonly bounds: readonly number[],
  ) {
    this.counts = new Float64Array(bounds.length + 1);
  }

  observe(v: number): void {
    const b = this.bounds;
    let i = 0;
    while (i < b.length && v > (b[i] as number)) i++;
    this.counts[i] = (this.counts[i] as number) + 1;
    this.sum += v;
    this.count += 1;
  }
}

/** Request latency buckets (seconds): 0.1 ms to 10 s. */
export const LATENCY_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10] as const;

export class MetricsRegistry {
  private readonly families: Family[] = [];
  private readonly names = new Set<string>();

  private add(f: Family): void {
    if (this.names.has(f.name)) throw new Error(`metric ${f.name} registered twice`);
    if (!/^[a-zA-Z_:][a-zA-Z0-9_:]*$/.test(f.name)) throw new Error(`bad metric name ${f.name}`);
    this.names.add(f.name);
    this.families.push(f);
  }

  /** A counter family; `child(labels)` gives the series to increment (kept by the caller). */
  counter(name: string, help: string): { child(labels?: Labels): Counter } {
    const children: Counter[] = [];
    this.add({
      name, help, type: 'counter',
      write: (lines) => {
        for (const c of children) lines.push(`${name}${labelText(c.labels)} ${num(c.value)}`);
      },
    });
    return {
      child: (labels = {}) => {
        const c = new Counter(labels);
        children.push(c);
        return c;
      },
    };
  }

  /** A gauge read at scrape time: one sample per returned entry (`[labels, value]`), or a number. */
  gauge(name: string, help: string, read: () => number | readonly (readonly [Labels, number])[]): void {
    this.add({
      name, help, type: 'gauge',
      write: (lines) => {
        const v = read();
        if (typeof v === 'number') lines.push(`${name} ${num(v)}`);
        else for (const [labels, x] of v) lines.push(`${name}${labelText(labels)} ${num(x)}`);
      },
    });
  }

  histogram(name: string, help: string, bounds: readonly number[] = LATENCY_BUCKETS): { child(labels?: Labels): Histogram } {
    const children: Histogram[] = [];
    this.add({
      name, help, type: 'histogram',
      write: (lines) => {
        for (const h of children) {
          let cumulative = 0;
          h.bounds.forEach((b, i) => {
            cumulative += h.counts[i] as number;
            lines.push(`${name}_bucket${labelText(h.labels, `le="${num(b)}"`)} ${cumulative}`);
          });
          cumulative += h.counts[h.bounds.length] as number;
          lines.push(`${name}_bucket${labelText(h.labels, 'le="+Inf"')} ${cumulative}`);
          lines.push(`${name}_sum${labelText(h.labels)} ${num(h.sum)}`);
          lines.push(`${name}_count${labelText(h.labels)} ${h.count}`);
        }
      },
    });
    return {
      child: (labels = {}) => {
        const h = new Histogram(labels, bounds);
        children.push(h);
        return h;
      },
    };
  }

  /** The text exposition format 0.0.4 (Content-Type `text/plain; version=0.0.4`). */
  expose(): string {
    const lines: string[] = [];
    for (const f of this.families) {
      lines.push(`# HELP ${f.name} ${f.help.replace(/\\/g, '\\\\').replace(/\n/g, '\\n')}`);
      lines.push(`# TYPE ${f.name} ${f.type}`);
      f.write(lines);
    }
    return `${lines.join('\n')}\n`;
  }
}

export const METRICS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';
