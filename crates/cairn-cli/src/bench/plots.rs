//! `--report_dir`: SVG plots of each step, written by hand (no plotting dependency): the
//! throughput per second over the step (`<n>-<name>-throughput.svg`) and the latency
//! percentiles per operation type (`<n>-<name>-latency.svg`, a log-scale bar chart).

use std::fmt::Write as _;
use std::path::Path;

use super::engine::Result;
use super::workloads::StepReport;

const W: f64 = 720.0;
const H: f64 = 360.0;
const LEFT: f64 = 80.0;
const BOTTOM: f64 = 40.0;
const TOP: f64 = 40.0;
const RIGHT: f64 = 20.0;

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

fn svg_open(title: &str) -> String {
    format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{W}\" height=\"{H}\" \
         viewBox=\"0 0 {W} {H}\" font-family=\"sans-serif\" font-size=\"12\">\n\
         <rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n\
         <text x=\"{}\" y=\"24\" text-anchor=\"middle\" font-size=\"15\">{}</text>\n",
        W / 2.0,
        escape(title)
    )
}

fn axes(svg: &mut String, x_label: &str, y_label: &str) {
    let (x0, y0, x1, y1) = (LEFT, H - BOTTOM, W - RIGHT, TOP);
    let _ = writeln!(
        svg,
        "<line x1=\"{x0}\" y1=\"{y0}\" x2=\"{x1}\" y2=\"{y0}\" stroke=\"black\"/>\n\
         <line x1=\"{x0}\" y1=\"{y0}\" x2=\"{x0}\" y2=\"{y1}\" stroke=\"black\"/>\n\
         <text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n\
         <text x=\"16\" y=\"{}\" text-anchor=\"middle\" transform=\"rotate(-90 16 {})\">{}</text>",
        (x0 + x1) / 2.0,
        H - 8.0,
        escape(x_label),
        (y0 + y1) / 2.0,
        (y0 + y1) / 2.0,
        escape(y_label)
    );
}

/// The throughput plot: operations per second, one point per whole second of the step (the
/// trailing partial second would show as a dip that never happened).
pub fn throughput_svg(step: &StepReport) -> String {
    let mut svg = svg_open(&format!("{}: operations per second", step.name));
    axes(&mut svg, "seconds", "ops/s");
    let series = &step.per_second[..step.throughput.seconds.min(step.per_second.len())];
    let max = series.iter().copied().max().unwrap_or(0).max(1) as f64;
    let n = series.len().max(2) as f64;
    let (pw, ph) = (W - LEFT - RIGHT, H - TOP - BOTTOM);
    let points: Vec<String> = series
        .iter()
        .enumerate()
        .map(|(i, &v)| {
            format!(
                "{:.1},{:.1}",
                LEFT + pw * i as f64 / (n - 1.0),
                H - BOTTOM - ph * v as f64 / max
            )
        })
        .collect();
    let _ = writeln!(
        svg,
        "<polyline fill=\"none\" stroke=\"steelblue\" stroke-width=\"2\" points=\"{}\"/>",
        points.join(" ")
    );
    let median_y = H - BOTTOM - ph * step.throughput.median / max;
    let _ = writeln!(
        svg,
        "<line x1=\"{LEFT}\" y1=\"{median_y:.1}\" x2=\"{}\" y2=\"{median_y:.1}\" stroke=\"gray\" \
         stroke-dasharray=\"4 4\"/>\n<text x=\"{}\" y=\"{:.1}\" text-anchor=\"end\" \
         fill=\"gray\">median {:.0}, CV {:.3}</text>",
        W - RIGHT,
        W - RIGHT,
        median_y - 4.0,
        step.throughput.median,
        step.throughput.cv
    );
    let _ = writeln!(
        svg,
        "<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{max:.0}</text>\n\
         <text x=\"{}\" y=\"{}\" text-anchor=\"end\">0</text>\n\
         <text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>",
        LEFT - 4.0,
        TOP + 4.0,
        LEFT - 4.0,
        H - BOTTOM,
        W - RIGHT,
        H - BOTTOM + 16.0,
        series.len()
    );
    svg.push_str("</svg>\n");
    svg
}

/// The latency plot: P50, P99, P99.9, P99.99 and max per operation type, on a log scale.
pub fn latency_svg(step: &StepReport) -> String {
    let mut svg = svg_open(&format!(
        "{}: latency percentiles (us, log scale)",
        step.name
    ));
    axes(&mut svg, "percentile", "microseconds");
    let labels = ["P50", "P99", "P99.9", "P99.99", "Max"];
    let colors = ["steelblue", "darkorange", "seagreen", "crimson", "purple"];
    let values: Vec<(String, [f64; 5])> = step
        .latency
        .iter()
        .map(|(k, p)| {
            (
                format!("{k:?}").to_lowercase(),
                [p.p50_us, p.p99_us, p.p999_us, p.p9999_us, p.max_us],
            )
        })
        .collect();
    let max = values
        .iter()
        .flat_map(|(_, v)| v.iter().copied())
        .fold(1.0f64, f64::max);
    let top = max.log10().ceil().max(1.0);
    let (pw, ph) = (W - LEFT - RIGHT, H - TOP - BOTTOM);
    let y = |v: f64| H - BOTTOM - ph * (v.max(0.1).log10() + 1.0).max(0.0) / (top + 1.0);
    for decade in -1..=top as i32 {
        let v = 10f64.powi(decade);
        let _ = writeln!(
            svg,
            "<line x1=\"{LEFT}\" y1=\"{:.1}\" x2=\"{}\" y2=\"{:.1}\" stroke=\"#ddd\"/>\n\
             <text x=\"{}\" y=\"{:.1}\" text-anchor=\"end\">{v}</text>",
            y(v),
            W - RIGHT,
            y(v),
            LEFT - 4.0,
            y(v) + 4.0
        );
    }
    let groups = labels.len() as f64;
    let kinds = values.len().max(1) as f64;
    let group_w = pw / groups;
    let bar_w = group_w * 0.8 / kinds;
    for (g, label) in labels.iter().enumerate() {
        let gx = LEFT + group_w * g as f64;
        let _ = writeln!(
            svg,
            "<text x=\"{:.1}\" y=\"{}\" text-anchor=\"middle\">{label}</text>",
            gx + group_w / 2.0,
            H - BOTTOM + 16.0
        );
        for (k, (_, v)) in values.iter().enumerate() {
            let x = gx + group_w * 0.1 + bar_w * k as f64;
            let top_y = y(v[g]);
            let _ = writeln!(
                svg,
                "<rect x=\"{x:.1}\" y=\"{top_y:.1}\" width=\"{:.1}\" height=\"{:.1}\" \
                 fill=\"{}\"><title>{:.2} us</title></rect>",
                bar_w * 0.9,
                (H - BOTTOM - top_y).max(0.0),
                colors[k % colors.len()],
                v[g]
            );
        }
    }
    for (k, (name, _)) in values.iter().enumerate() {
        let _ = writeln!(
            svg,
            "<rect x=\"{}\" y=\"{}\" width=\"10\" height=\"10\" fill=\"{}\"/>\
             <text x=\"{}\" y=\"{}\">{}</text>",
            LEFT + 10.0 + 90.0 * k as f64,
            TOP - 2.0,
            colors[k % colors.len()],
            LEFT + 24.0 + 90.0 * k as f64,
            TOP + 8.0,
            escape(name)
        );
    }
    svg.push_str("</svg>\n");
    svg
}

/// Writes both plots of every step that did operations into `dir`.
///
/// # Errors
/// The directory or a file cannot be written.
pub fn write_plots(dir: &Path, steps: &[StepReport]) -> Result<()> {
    create_report_dir(dir)?;
    for (i, step) in steps.iter().enumerate() {
        let base = format!("{:02}-{}", i + 1, step.name);
        let files = [
            (format!("{base}-throughput.svg"), throughput_svg(step)),
            (format!("{base}-latency.svg"), latency_svg(step)),
        ];
        for (name, svg) in files {
            let path = dir.join(name);
            std::fs::write(&path, svg).map_err(|e| cairndb::Error::io("write plot", &path, e))?;
        }
    }
    Ok(())
}

/// Creates `--report_dir` (and its parents) if missing; called before the run, so that a
/// directory that cannot be made fails the command before any benchmark runs.
pub fn create_report_dir(dir: &Path) -> Result<()> {
    std::fs::create_dir_all(dir).map_err(|e| cairndb::Error::io("create --report_dir", dir, e))?;
    Ok(())
}
