//! What the server answers when it refuses a request: a status, a message,
//! and fam's positioned diagnostics both as data and as the CLI prints them.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::Serialize;

use crate::diag::{Diagnostic, SourceFile};

/// The most diagnostics listed and rendered for one file: an FTJava
/// import's whole list (its first [`crate::ftjava::limits::DIAGNOSTICS`]
/// and its line counting the rest) passes.
const DIAGNOSTIC_LIMIT: usize = crate::ftjava::limits::DIAGNOSTICS + 1;

/// One diagnostic, located.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Located {
    pub file: String,
    /// 1-based; 0 when the diagnostic is about the whole file.
    pub line: usize,
    pub column: usize,
    pub severity: &'static str,
    pub message: String,
    pub expected: String,
    pub help: Option<String>,
    /// The part of the page's battle the diagnostic is about
    /// (`formation/1/0`, `victory.max_exchanges`, `file/NAME` …,
    /// docs/serve-api.md), when the server knows it.
    pub place: Option<String>,
}

/// A refused request.
#[derive(Debug, Clone, Serialize)]
pub struct ApiError {
    #[serde(skip)]
    pub status: StatusCode,
    pub message: String,
    pub diagnostics: Vec<Located>,
    /// The diagnostics as `fam check` prints them.
    pub rendered: String,
}

impl ApiError {
    /// Refused with this status.
    pub fn new_status(status: StatusCode, message: impl Into<String>) -> ApiError {
        ApiError {
            status,
            message: message.into(),
            diagnostics: Vec::new(),
            rendered: String::new(),
        }
    }

    /// The request is well formed but fam refuses what it asks (422).
    pub fn refused(message: impl Into<String>) -> ApiError {
        ApiError::new_status(StatusCode::UNPROCESSABLE_ENTITY, message)
    }

    /// The request could not be read (400).
    pub fn bad_request(message: impl Into<String>) -> ApiError {
        ApiError::new_status(StatusCode::BAD_REQUEST, message)
    }

    /// Not answered for this client (403): its Host is not the server's.
    pub fn forbidden(message: impl Into<String>) -> ApiError {
        ApiError::new_status(StatusCode::FORBIDDEN, message)
    }

    /// Too large (413).
    pub fn too_large(message: impl Into<String>) -> ApiError {
        ApiError::new_status(StatusCode::PAYLOAD_TOO_LARGE, message)
    }

    /// No such thing (404).
    pub fn not_found(message: impl Into<String>) -> ApiError {
        ApiError::new_status(StatusCode::NOT_FOUND, message)
    }

    /// Busy: this client already runs a job, or every slot is taken (409).
    pub fn busy(message: impl Into<String>) -> ApiError {
        ApiError::new_status(StatusCode::CONFLICT, message)
    }

    /// Something failed on the server's side (500).
    pub fn failed(message: impl Into<String>) -> ApiError {
        ApiError::new_status(StatusCode::INTERNAL_SERVER_ERROR, message)
    }

    /// Refused with fam's diagnostics for these files (422).
    pub fn from_reports(message: impl Into<String>, reports: &[(SourceFile, Vec<Diagnostic>)]) -> ApiError {
        let mut e = ApiError::refused(message);
        for (source, diags) in reports {
            e.diagnostics.extend(located(source, diags));
            e.rendered
                .push_str(&source.render_styled(diags, DIAGNOSTIC_LIMIT, false));
        }
        e
    }
}

/// Each diagnostic with its file, line and column: the first
/// [`DIAGNOSTIC_LIMIT`], then (when there are more) one note saying how
/// many more there are, so that an answer is small whatever the file.
pub fn located(source: &SourceFile, diags: &[Diagnostic]) -> Vec<Located> {
    let mut list: Vec<Located> = diags
        .iter()
        .take(DIAGNOSTIC_LIMIT)
        .map(|d| {
            let (line, column) = if d.whole_file {
                (0, 0)
            } else {
                source.line_col(d.span.start)
            };
            Located {
                file: source.name.clone(),
                line,
                column,
                severity: if d.is_error() { "error" } else { "warning" },
                message: d.message.clone(),
                expected: d.expected.clone(),
                help: d.help.clone(),
                place: None,
            }
        })
        .collect();
    if diags.len() > DIAGNOSTIC_LIMIT {
        let more = diags.len() - DIAGNOSTIC_LIMIT;
        list.push(Located {
            file: source.name.clone(),
            line: 0,
            column: 0,
            severity: "note",
            message: format!(
                "and {more} more {} in this file (fam's command line lists them all)",
                if more == 1 { "problem" } else { "problems" },
            ),
            expected: String::new(),
            help: None,
            place: None,
        });
    }
    list
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = serde_json::json!({ "error": &self });
        (self.status, axum::Json(body)).into_response()
    }
}
