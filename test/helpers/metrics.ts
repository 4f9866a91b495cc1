/** Scrapes `GET /metrics` and parses it with a Prometheus text-format parser (not the service's own code). */
import parsePrometheusTextFormat from "parse-prometheus-text-format";

export interface Scrape {
  contentType: string;
  families: Map<string, ReturnType<typeof parsePrometheusTextFormat>[number]>;
  /** Sum of a counter's or gauge's samples whose labels include `labels`. */
  value(name: string, labels?: Record<string, string>): number;
  /** Observations of a histogram (summed over label sets). */
  histogramCount(name: string): number;
}

export async function scrapeMetrics(baseUrl: string): Promise<Scrape> {
  const res = await fetch(`${baseUrl}/metrics`);
  if (res.status !== 200) throw new Error(`/metrics answered ${res.status}`);
  const families = new Map(parsePrometheusTextFormat(await res.text()).map((f) => [f.name, f]));
  const family = (name: string) => {
    const f = families.get(name);
    if (!f) throw new Error(`metric ${name} not exported; have ${[...families.keys()].join(", ")}`);
    return f;
  };
  return {
    contentType: res.headers.get("content-type") ?? "",
    families,
    value(name, labels = {}) {
      return family(name)
        .metrics.filter((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v))
        .reduce((s, m) => s + Number(m.value), 0);
    },
    histogramCount(name) {
      const f = family(name);
      if (f.type !== "HISTOGRAM") throw new Error(`${name} is a ${f.type}, not a histogram`);
      return f.metrics.reduce((s, m) => s + Number(m.count), 0);
    },
  };
}
