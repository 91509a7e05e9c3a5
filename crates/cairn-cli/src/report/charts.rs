//! The charts of a report, drawn with `plotters` into SVG strings: per-second throughput over
//! time, a box plot of per-second throughput per run, latency percentiles on a log scale, and
//! bars of one figure per run. Each chart puts every run of a step side by side, coloured by
//! engine.

use plotters::prelude::*;

use super::model::{Run, Step};

/// Chart size in pixels.
const SIZE: (u32, u32) = (900, 420);
/// Longest per-second series drawn with a mark on every second.
const MARKED_SECONDS: usize = 120;

/// Colour of the `i`-th engine.
fn engine_color(i: usize) -> RGBColor {
    const COLORS: [RGBColor; 6] = [
        RGBColor(31, 119, 180),
        RGBColor(214, 39, 40),
        RGBColor(44, 160, 44),
        RGBColor(148, 103, 189),
        RGBColor(255, 127, 14),
        RGBColor(23, 190, 207),
    ];
    COLORS[i % COLORS.len()]
}

/// A chart's frame on `root`: its caption and the room for the axis labels, the same on every
/// chart of a report.
fn frame<'a, 'b>(
    root: &'a DrawingArea<SVGBackend<'b>, plotters::coord::Shift>,
    caption: String,
) -> ChartBuilder<'a, 'b, SVGBackend<'b>> {
    let mut builder = ChartBuilder::on(root);
    builder
        .caption(caption, ("sans-serif", 20))
        .margin(10)
        .x_label_area_size(36)
        .y_label_area_size(70);
    builder
}

/// The runs that have step `name`, with the step and the colour of their engine.
fn with_step<'a>(
    runs: &'a [Run],
    engines: &[String],
    name: &str,
) -> Vec<(&'a Run, &'a Step, RGBColor)> {
    runs.iter()
        .filter_map(|r| {
            let e = engines.iter().position(|e| *e == r.engine).unwrap_or(0);
            r.step(name).map(|s| (r, s, engine_color(e)))
        })
        .collect()
}

/// Draws with `draw` on an SVG canvas and returns the document; a drawing error becomes an SVG
/// that says so.
fn svg(
    draw: impl FnOnce(&DrawingArea<SVGBackend<'_>, plotters::coord::Shift>) -> Result<(), String>,
) -> String {
    let mut out = String::new();
    let result = {
        let root = SVGBackend::with_string(&mut out, SIZE).into_drawing_area();
        let r = root
            .fill(&WHITE)
            .map_err(|e| e.to_string())
            .and_then(|()| draw(&root));
        r.and_then(|()| root.present().map_err(|e| e.to_string()))
    };
    match result {
        Ok(()) => out,
        Err(e) => format!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"600\" height=\"40\"><text x=\"4\" \
             y=\"24\">chart not drawn: {}</text></svg>",
            super::page::escape(&e)
        ),
    }
}

/// Operations per second over time, one line per run (whole seconds only).
pub fn throughput_over_time(runs: &[Run], engines: &[String], name: &str) -> String {
    let lines = with_step(runs, engines, name);
    let seconds = lines
        .iter()
        .map(|(_, s, _)| s.whole_seconds().len())
        .max()
        .unwrap_or(0)
        .max(1);
    let top = lines
        .iter()
        .flat_map(|(_, s, _)| s.whole_seconds().iter().copied())
        .max()
        .unwrap_or(1)
        .max(1) as f64
        * 1.08;
    svg(|root| {
        let mut chart = frame(root, format!("{name}: operations per second"))
            .build_cartesian_2d(0f64..seconds as f64, 0f64..top)
            .map_err(|e| e.to_string())?;
        chart
            .configure_mesh()
            .x_desc("seconds since the step started")
            .y_desc("ops/s")
            .y_label_formatter(&|v| si(*v))
            .draw()
            .map_err(|e| e.to_string())?;
        for (run, step, color) in &lines {
            let points = step
                .whole_seconds()
                .iter()
                .enumerate()
                .map(|(i, &v)| (i as f64 + 0.5, v as f64));
            let points: Vec<(f64, f64)> = points.collect();
            let color = *color;
            chart
                .draw_series(LineSeries::new(points.clone(), color.stroke_width(2)))
                .map_err(|e| e.to_string())?
                .label(run.label())
                .legend(move |(x, y)| {
                    PathElement::new([(x, y), (x + 18, y)], color.stroke_width(2))
                });
            // Short series get a mark per second, so that one or two seconds still show.
            if points.len() <= MARKED_SECONDS {
                chart
                    .draw_series(points.iter().map(|&p| Circle::new(p, 3, color.filled())))
                    .map_err(|e| e.to_string())?;
            }
        }
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .draw()
            .map_err(|e| e.to_string())
    })
}

/// A box plot of each run's per-second throughput (quartiles, whiskers at 1.5 IQR).
pub fn throughput_boxes(runs: &[Run], engines: &[String], name: &str) -> String {
    let boxes: Vec<(String, Quartiles, RGBColor)> = with_step(runs, engines, name)
        .into_iter()
        .filter(|(_, s, _)| !s.whole_seconds().is_empty())
        .map(|(r, s, c)| {
            let v: Vec<f64> = s.whole_seconds().iter().map(|&x| x as f64).collect();
            (r.label(), Quartiles::new(&v), c)
        })
        .collect();
    let top = boxes
        .iter()
        .map(|(_, q, _)| q.values()[4])
        .fold(1f32, f32::max)
        * 1.08;
    let n = boxes.len().max(1);
    let labels: Vec<String> = boxes.iter().map(|(l, _, _)| l.clone()).collect();
    svg(|root| {
        let mut chart = frame(root, format!("{name}: per-second throughput per run"))
            .build_cartesian_2d(-0.5f64..n as f64 - 0.5, 0f32..top)
            .map_err(|e| e.to_string())?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(n)
            .x_label_formatter(&|x| category(&labels, *x))
            .y_desc("ops/s in one second")
            .y_label_formatter(&|v| si(f64::from(*v)))
            .draw()
            .map_err(|e| e.to_string())?;
        chart
            .draw_series(boxes.iter().enumerate().map(|(i, (_, q, c))| {
                Boxplot::new_vertical(i as f64, q)
                    .width(40)
                    .whisker_width(0.5)
                    .style(c.stroke_width(2))
            }))
            .map_err(|e| e.to_string())?;
        Ok(())
    })
}

/// Latency percentiles (p50 to max) of each run's main operation type, log scale.
pub fn latency_percentiles(runs: &[Run], engines: &[String], name: &str) -> String {
    let lines: Vec<_> = with_step(runs, engines, name)
        .into_iter()
        .filter_map(|(r, s, c)| {
            s.main_latency()
                .map(|(kind, l)| (r, kind.to_string(), *l, c))
        })
        .collect();
    let values = lines
        .iter()
        .flat_map(|(_, _, l, _)| l.points().map(|(_, v)| v));
    let (lo, hi) = values.fold((f64::MAX, 0f64), |(lo, hi), v| (lo.min(v), hi.max(v)));
    let (lo, hi) = if hi > 0.0 {
        ((lo.max(0.01)) / 2.0, hi * 2.0)
    } else {
        (0.1, 10.0)
    };
    let kind = lines
        .first()
        .map_or(String::new(), |(_, k, _, _)| k.clone());
    let names = ["p50", "p99", "p99.9", "p99.99", "max"]
        .map(String::from)
        .to_vec();
    svg(|root| {
        let mut chart = frame(root, format!("{name}: {kind} latency (us, log scale)"))
            .build_cartesian_2d(-0.5f64..4.5, (lo..hi).log_scale())
            .map_err(|e| e.to_string())?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(5)
            .x_label_formatter(&|x| category(&names, *x))
            .y_desc("microseconds")
            .draw()
            .map_err(|e| e.to_string())?;
        for (run, _, lat, color) in &lines {
            let points: Vec<(f64, f64)> = lat
                .points()
                .iter()
                .enumerate()
                .map(|(i, (_, v))| (i as f64, v.max(lo)))
                .collect();
            let color = *color;
            chart
                .draw_series(LineSeries::new(points.clone(), color.stroke_width(2)))
                .map_err(|e| e.to_string())?
                .label(run.label())
                .legend(move |(x, y)| {
                    PathElement::new([(x, y), (x + 18, y)], color.stroke_width(2))
                });
            chart
                .draw_series(points.iter().map(|&p| Circle::new(p, 3, color.filled())))
                .map_err(|e| e.to_string())?;
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperLeft)
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .draw()
            .map_err(|e| e.to_string())
    })
}

/// One bar per run of `figure(step)`, with the value written above it; runs without the
/// figure get no bar.
pub fn bars(
    runs: &[Run],
    engines: &[String],
    name: &str,
    title: &str,
    figure: impl Fn(&Run, &Step) -> Option<f64>,
) -> String {
    let bars: Vec<(String, f64, RGBColor)> = with_step(runs, engines, name)
        .into_iter()
        .filter_map(|(r, s, c)| {
            figure(r, s)
                .filter(|v| v.is_finite())
                .map(|v| (r.label(), v, c))
        })
        .collect();
    let top = bars
        .iter()
        .map(|(_, v, _)| *v)
        .fold(0f64, f64::max)
        .max(f64::MIN_POSITIVE)
        * 1.15;
    let n = bars.len().max(1);
    let labels: Vec<String> = bars.iter().map(|(l, _, _)| l.clone()).collect();
    svg(|root| {
        let mut chart = frame(root, format!("{name}: {title}"))
            .build_cartesian_2d(-0.5f64..n as f64 - 0.5, 0f64..top)
            .map_err(|e| e.to_string())?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(n)
            .x_label_formatter(&|x| category(&labels, *x))
            .y_label_formatter(&|v| si(*v))
            .draw()
            .map_err(|e| e.to_string())?;
        chart
            .draw_series(bars.iter().enumerate().map(|(i, (_, v, c))| {
                let x = i as f64;
                Rectangle::new([(x - 0.3, 0.0), (x + 0.3, *v)], c.filled())
            }))
            .map_err(|e| e.to_string())?;
        chart
            .draw_series(bars.iter().enumerate().map(|(i, (_, v, _))| {
                Text::new(
                    si(*v),
                    (i as f64 - 0.1, *v * 1.02 + top * 0.02),
                    ("sans-serif", 14),
                )
            }))
            .map_err(|e| e.to_string())?;
        Ok(())
    })
}

/// The label of the category nearest `x` (empty between categories).
fn category(labels: &[String], x: f64) -> String {
    let i = x.round();
    if (x - i).abs() > 0.01 || i < 0.0 {
        return String::new();
    }
    labels.get(i as usize).cloned().unwrap_or_default()
}

/// `v` with a k/M/G suffix and three significant digits.
pub fn si(v: f64) -> String {
    let a = v.abs();
    let (x, suffix) = if a >= 1e9 {
        (v / 1e9, "G")
    } else if a >= 1e6 {
        (v / 1e6, "M")
    } else if a >= 1e3 {
        (v / 1e3, "k")
    } else {
        (v, "")
    };
    let digits = if x.abs() >= 100.0 {
        0
    } else if x.abs() >= 10.0 {
        1
    } else {
        2
    };
    format!("{x:.digits$}{suffix}")
}
