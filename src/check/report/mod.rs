//! Reports of a `check` run: JUnit XML for CI systems, JSON for machines, and a self-contained
//! HTML review page.

mod context;
mod html;
mod json;
mod junit;
mod status;

pub use context::{ReportContext, bless_command};
pub use html::{html_report, plan_html_report};
pub use json::json_report;
pub use junit::junit_xml;
