//! The report page: one HTML file with the charts inlined as SVG, and the ratio table that
//! compares the first engine with each other one, step by step: medians over the rounds, the
//! throughput ratio of the medians, and the per-round ratios (round `i` of one engine against
//! round `i` of the other).

use std::fmt::Write;

use super::charts;
use super::model::{engines, median, step_names, Run, Step};

/// Escapes text for HTML.
pub fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The charts of step `name`: (file-name suffix, SVG).
pub fn step_charts(runs: &[Run], name: &str) -> Vec<(&'static str, String)> {
    let e = engines(runs);
    vec![
        ("throughput", charts::throughput_over_time(runs, &e, name)),
        ("throughput-boxes", charts::throughput_boxes(runs, &e, name)),
        ("latency", charts::latency_percentiles(runs, &e, name)),
        (
            "cpu",
            charts::bars(runs, &e, name, "CPU microseconds per operation", |_, s| {
                s.efficiency.cpu_us_per_op
            }),
        ),
        (
            "write-amp",
            charts::bars(runs, &e, name, "device write amplification", |_, s| {
                s.efficiency.write_amp_device
            }),
        ),
        (
            "size",
            charts::bars(
                runs,
                &e,
                name,
                "database size at the end (bytes)",
                |_, s| s.efficiency.db_bytes.map(|b| b as f64),
            ),
        ),
    ]
}

/// Median over `engine`'s runs of `figure` of step `name`.
fn engine_median(
    runs: &[Run],
    engine: &str,
    name: &str,
    figure: &dyn Fn(&Step) -> Option<f64>,
) -> Option<f64> {
    let v: Vec<f64> = runs
        .iter()
        .filter(|r| r.engine == engine)
        .filter_map(|r| r.step(name).and_then(figure))
        .collect();
    median(&v)
}

/// `engine`'s runs' ops/s of step `name`, by round.
fn by_round(runs: &[Run], engine: &str, name: &str) -> Vec<(usize, f64)> {
    runs.iter()
        .filter(|r| r.engine == engine)
        .filter_map(|r| r.step(name).map(|s| (r.round, s.ops_per_sec)))
        .collect()
}

fn cell(v: Option<f64>, fmt: impl Fn(f64) -> String) -> String {
    v.map_or_else(|| "–".to_string(), fmt)
}

/// The ratio table (HTML).
pub fn ratio_table(runs: &[Run]) -> String {
    let e = engines(runs);
    let Some(first) = e.first() else {
        return String::new();
    };
    let mut out = String::new();
    for other in e.iter().skip(1) {
        let _ = writeln!(
            out,
            "<h3>{a} against {b}</h3>\n<p>Medians over each engine's rounds; ratio = {a} ÷ {b} \
             (throughput: above 1 is better for {a}).</p>\n<table>\n<tr><th>step</th>\
             <th>{a} ops/s</th><th>{b} ops/s</th><th>ratio</th><th>per round</th>\
             <th>CPU µs/op {a} / {b}</th><th>write-amp {a} / {b}</th>\
             <th>p99.9 µs {a} / {b}</th><th>max µs {a} / {b}</th><th>CV {a} / {b}</th>\
             <th>size MB {a} / {b}</th></tr>",
            a = escape(first),
            b = escape(other)
        );
        for name in step_names(runs) {
            let m = |engine: &str, f: &dyn Fn(&Step) -> Option<f64>| {
                engine_median(runs, engine, &name, f)
            };
            let ops = |s: &Step| Some(s.ops_per_sec);
            let (a, b) = (m(first, &ops), m(other, &ops));
            let ratio = a.zip(b).filter(|(_, b)| *b > 0.0).map(|(a, b)| a / b);
            let rb = by_round(runs, other, &name);
            let rounds: Vec<String> = by_round(runs, first, &name)
                .iter()
                .filter_map(|(round, va)| {
                    rb.iter()
                        .find(|(r, _)| r == round)
                        .filter(|(_, vb)| *vb > 0.0)
                        .map(|(_, vb)| format!("{:.2}", va / vb))
                })
                .collect();
            let pair = |f: &dyn Fn(&Step) -> Option<f64>, fmt: &dyn Fn(f64) -> String| {
                format!("{} / {}", cell(m(first, f), fmt), cell(m(other, f), fmt))
            };
            let lat = |pick: fn(&super::model::Latency) -> f64| {
                move |s: &Step| s.main_latency().map(|(_, l)| pick(l))
            };
            let _ = writeln!(
                out,
                "<tr><td>{}</td><td>{}</td><td>{}</td><td><b>{}</b></td><td>{}</td><td>{}</td>\
                 <td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                escape(&name),
                cell(a, |v| format!("{v:.0}")),
                cell(b, |v| format!("{v:.0}")),
                cell(ratio, |v| format!("{v:.2}")),
                rounds.join(", "),
                pair(&|s| s.efficiency.cpu_us_per_op, &|v| format!("{v:.2}")),
                pair(&|s| s.efficiency.write_amp_device, &|v| format!("{v:.2}")),
                pair(&lat(|l| l.p999_us), &|v| format!("{v:.0}")),
                pair(&lat(|l| l.max_us), &|v| format!("{v:.0}")),
                pair(
                    &|s| (s.throughput.seconds > 0).then_some(s.throughput.cv),
                    &|v| format!("{v:.3}")
                ),
                pair(
                    &|s| s.efficiency.db_bytes.map(|b| b as f64 / 1e6),
                    &|v| format!("{v:.0}")
                ),
            );
        }
        out.push_str("</table>\n");
    }
    out
}

/// The whole page.
pub fn html(runs: &[Run], title: &str) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>{t}</title>\n<style>\
         body{{font-family:sans-serif;max-width:1000px;margin:auto}} \
         table{{border-collapse:collapse}} td,th{{border:1px solid #bbb;padding:3px 6px;\
         text-align:right}} td:first-child{{text-align:left}} code{{font-size:85%}}</style>\
         </head><body>\n<h1>{t}</h1>",
        t = escape(title)
    );
    out.push_str("<h2>Runs</h2>\n<ul>\n");
    for r in runs {
        let _ = writeln!(
            out,
            "<li><b>{}</b>: {}{} — <code>{}</code></li>",
            escape(&r.label()),
            escape(&r.description),
            r.final_db_bytes.map_or(String::new(), |b| format!(
                ", {:.0} MB at the end",
                b as f64 / 1e6
            )),
            escape(&r.argv.join(" "))
        );
    }
    out.push_str("</ul>\n<h2>Ratios</h2>\n");
    out.push_str(&ratio_table(runs));
    for name in step_names(runs) {
        let _ = writeln!(out, "<h2>{}</h2>", escape(&name));
        for (_, svg) in step_charts(runs, &name) {
            out.push_str("<div>");
            out.push_str(&svg);
            out.push_str("</div>\n");
        }
    }
    out.push_str("</body></html>\n");
    out
}
