//! Which cases a run selects and what they will write, known before any case renders: the
//! shard and names chosen, each case resolved against the manifest's folder, and the files a
//! run would write checked against every file its cases read.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::case::Case;
use super::detail::tolerance_of;
use super::manifest::{CaseKeys, CaseSpec, Manifest};
use super::options::CheckOptions;
use super::render_golden::is_golden_folder;
use crate::bake::{self, Product};
use crate::budget::{BATCH_BYTES, MemoryBudget, is_pool_spent, run_pooled};
use crate::confine::Confinement;
use crate::error::{ClashKind, Error, Result};
use crate::output::{OutputFormat, OutputPlan, Role, Use, Uses, sanitize_component};

/// The case's golden file or folder, which may not exist yet: reading it (and copying it into
/// an HTML report) or blessing it stays inside the allowed folders.
pub(super) fn confined_golden(keys: &CaseKeys, scope: &Confinement) -> Result<PathBuf> {
    let path = scope.home().join(&keys.golden);
    scope.place(&path).map_err(|d| d.into_error(&path, format!("`golden` = '{}'", keys.golden.display())))?;
    Ok(path)
}

pub(super) fn resolve(spec: &CaseSpec, scope: &Confinement, options: &CheckOptions) -> Result<Case> {
    let keys = &spec.keys;
    let mut spec_with_limits = spec.spec.anchored(scope)?;
    spec_with_limits.limits = options.limits.apply(&spec_with_limits.limits);
    let resolved = spec_with_limits.resolve()?;
    if !resolved.look.maps.is_empty() {
        return Err(Error::bad_option(
            "maps",
            crate::spec::shown_maps(&resolved.look.maps),
            "are not compared by check, which compares colour images (bake maps with sheet, frames or render)",
        ));
    }
    Ok(Case {
        keys: keys.clone(),
        golden: confined_golden(keys, scope)?,
        compare: tolerance_of(keys).perceptual(),
        resolved,
        scope: scope.clone(),
    })
}

/// The cases of the shard and names `options` select, in manifest order.
pub(super) fn selected<'m>(manifest: &'m Manifest, options: &CheckOptions) -> Vec<&'m CaseSpec> {
    let in_shard = |i: usize| options.shard.is_none_or(|(k, n)| i % n == k);
    let named = |c: &CaseSpec| options.cases.is_empty() || options.cases.contains(&c.keys.name);
    manifest.cases.iter().enumerate().filter(|(i, c)| in_shard(*i) && named(c)).map(|(_, c)| c).collect()
}

/// Names in `options.cases` that no case has.
///
/// # Errors
/// A name that matches no case, with the closest names.
pub fn check_case_names(manifest: &Manifest, options: &CheckOptions) -> Result<()> {
    for name in &options.cases {
        if !manifest.cases.iter().any(|c| &c.keys.name == name) {
            let known = manifest.cases.iter().map(|c| c.keys.name.as_str());
            return Err(crate::model::UnknownName::new("case", name, known, "").into());
        }
    }
    Ok(())
}

/// What a run of `manifest` will write (actual and diff images with `out`, goldens with
/// `bless`, except those whose file count is known only once a case has loaded) and every file
/// its cases name (models, animations, attachments, textures, and the goldens when they are
/// only read), for checking before any case runs. Cases whose settings are invalid are left
/// out: they fail on their own when run. Each case checks its own outputs again against
/// everything its model actually read.
pub fn planned_outputs(manifest: &Manifest, options: &CheckOptions) -> (OutputPlan, Vec<PathBuf>) {
    let mut plan = OutputPlan::new();
    let mut inputs = Vec::new();
    for case in selected(manifest, options).into_iter().filter_map(|spec| resolve(spec, &manifest.scope, options).ok())
    {
        add_out_files(&case, options, &mut plan);
        let files = fixed_golden_files(&case);
        if options.bless {
            for (path, format) in files {
                plan.add(path, format);
            }
        } else {
            inputs.extend(files.into_iter().map(|(p, _)| p));
        }
        inputs.extend(case.resolved.spec.named_files());
    }
    (plan, inputs)
}

/// Refuses a run, before any case renders, in which one case's written files (a blessed
/// golden, an `--out` image) would replace a file another case reads (a texture, a material
/// library: known once its model is loaded). Only when some file the run writes already
/// exists — a file that does not exist yet is nobody's input — or a blessed sheet or frames
/// golden's files are known only after loading: every selected case is loaded once then, in
/// parallel, the models drawing on one pool of [`crate::budget::BATCH_BYTES`] (a case the
/// pool cannot take is loaded again alone, after the others). Cases that do not resolve or load
/// are left out: they fail on their own when run.
///
/// # Errors
/// [`Error::Refused`] naming the file and both cases, or [`Error::Clash`] naming the two paths
/// of one file that two cases write.
pub fn check_batch_outputs(manifest: &Manifest, options: &CheckOptions) -> Result<()> {
    if !options.bless && options.out.is_none() {
        return Ok(());
    }
    let cases: Vec<Case> = selected(manifest, options)
        .into_iter()
        .filter_map(|spec| resolve(spec, &manifest.scope, options).ok())
        .collect();
    let loaded_later = |case: &Case| options.bless && matches!(case.keys.kind, Product::Sheet | Product::Frames);
    // What a case writes that is known before loading (a sheet's or frames' goldens are
    // planned with its model, all of them).
    let fixed = |case: &Case| {
        let mut plan = OutputPlan::new();
        add_out_files(case, options, &mut plan);
        if options.bless && !loaded_later(case) {
            for (path, format) in fixed_golden_files(case) {
                plan.add(path, format);
            }
        }
        plan
    };
    let exists = |case: &Case| fixed(case).outputs().iter().any(|o| o.path.exists());
    if !cases.iter().any(|c| loaded_later(c) || exists(c)) {
        return Ok(());
    }
    // Each case's written files and read files, from its loaded model (`None`: it does not
    // load or plan; `Err`: the pool could not take it). The model is let go, and what it drew
    // on the pool given back, once its files are known.
    let planned = |case: &Case, pool: Option<&Arc<MemoryBudget>>| -> Result<Option<(OutputPlan, Vec<PathBuf>)>> {
        // The model and its attachments each get a budget, as `bake::load` gives them.
        let budget = || MemoryBudget::in_pool(case.resolved.load.limits.max_memory_bytes, pool);
        let loaded = match bake::load_within(&case.resolved, &budget(), &budget()) {
            Ok(loaded) => loaded,
            Err(e) if is_pool_spent(&e) => return Err(e),
            Err(_) => return Ok(None),
        };
        let mut plan = fixed(case);
        if loaded_later(case) {
            let golden = match case.keys.kind {
                Product::Frames => frames_pattern(&case.golden),
                _ => case.golden.to_string_lossy().into_owned(),
            };
            let Ok(planned) = case.keys.kind.plan(&golden, &loaded, &case.resolved) else { return Ok(None) };
            for o in planned.outputs() {
                plan.add(&o.path, o.format);
            }
        }
        Ok(Some((plan, loaded.inputs)))
    };
    let done = run_pooled(&cases, BATCH_BYTES, planned, |_, _| None);
    let known: Vec<Known> = cases
        .iter()
        .zip(done)
        .filter_map(|(case, p)| p.map(|(plan, inputs)| (case.keys.name.as_str(), plan, inputs)))
        .collect();
    check_across(&known)
}

/// A case's name, what it writes and what it reads.
type Known<'c> = (&'c str, OutputPlan, Vec<PathBuf>);

/// Refuses a file one case writes that another case reads, naming both cases, or that another
/// case (or the same, under another name) writes too; in one pass over one table of every
/// case's files. A case reading its own output is left to its own plan's check when it runs.
fn check_across(known: &[Known]) -> Result<()> {
    let mut uses = Uses::default();
    for (i, (_, _, inputs)) in known.iter().enumerate() {
        inputs.iter().for_each(|path| uses.add_existing_read(path, Some(i)));
    }
    // Each write joins the table once checked, so a clash of two names the later one, after
    // the earlier, as one output plan's check does.
    for (i, (_, plan, _)) in known.iter().enumerate() {
        for output in plan.outputs() {
            if let Some(refusal) = refusal(&uses, known, &output.path, i) {
                return Err(refusal);
            }
            uses.add(&output.path, Some(i), Role::Writes);
        }
    }
    Ok(())
}

/// Why `path`, written by case `by`, is refused, if it is: another case reads it (the news
/// worth reporting first, as in [`OutputPlan::check_distinct`]), or an earlier write is of it.
fn refusal(uses: &Uses, known: &[Known], path: &Path, by: usize) -> Option<Error> {
    let name = |i: Option<usize>| i.and_then(|i| known.get(i)).map_or("?", |(name, _, _)| *name);
    // Looked up once: finding the file's keys asks the filesystem.
    let others: Vec<&Use> = uses.others(path, by, Role::Writes).collect();
    let reader = others.iter().find(|u| u.role == Role::Reads && u.by != Some(by));
    if let Some(reader) = reader {
        let e = Error::Clash { output: path.to_path_buf(), other: reader.path.clone(), kind: ClashKind::Input };
        return Some(Error::Refused(format!(
            "{e}: case '{}' would write it and case '{}' reads it; nothing was rendered",
            name(Some(by)),
            name(reader.by)
        )));
    }
    let earlier = others.iter().find(|u| u.role == Role::Writes)?;
    Some(Error::Clash { output: path.to_path_buf(), other: earlier.path.clone(), kind: ClashKind::Output })
}

/// The golden files of a case that do not depend on what it renders.
pub(super) fn fixed_golden_files(case: &Case) -> Vec<(PathBuf, OutputFormat)> {
    let golden = case.golden.clone();
    match case.keys.kind {
        Product::Render if is_golden_folder(&golden) => Vec::new(),
        Product::Render => vec![(golden, OutputFormat::Png)],
        Product::Sheet => {
            let data = case.resolved.json_format.files(&golden);
            std::iter::once((golden, OutputFormat::Png)).chain(data).collect()
        }
        Product::Gif => vec![(golden, OutputFormat::Gif)],
        Product::Frames => Vec::new(),
    }
}

/// The actual and diff images of a case, with `out`.
pub(super) fn out_files(case: &Case, options: &CheckOptions) -> Option<(PathBuf, PathBuf)> {
    let out = options.out.as_ref()?;
    let safe = sanitize_component(&case.keys.name);
    Some((out.join(format!("{safe}.actual.png")), out.join(format!("{safe}.diff.png"))))
}

pub(super) fn add_out_files(case: &Case, options: &CheckOptions, plan: &mut OutputPlan) {
    if let Some((actual, diff)) = out_files(case, options) {
        plan.add(actual, OutputFormat::Png).add(diff, OutputFormat::Png);
    }
}

/// The golden of a `frames` case: a folder with the frames command's names in it.
pub(super) fn frames_pattern(golden: &Path) -> String {
    golden.join("{clip}_{dir}_{frame:03}.png").to_string_lossy().into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_case_writing_what_another_reads_or_writes_is_refused_in_one_pass() {
        let dir = std::env::temp_dir().join(format!("spritebake-check-plan-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let (skin, missing) = (dir.join("skin.png"), dir.join("missing.png"));
        std::fs::write(&skin, b"skin").unwrap();
        let writes = |path: &Path| {
            let mut plan = OutputPlan::new();
            plan.add(path, OutputFormat::Png);
            plan
        };
        // A case reading its own output is its own plan's business; a file that does not exist
        // yet is nobody's input.
        let own = [("a", writes(&skin), vec![skin.clone()]), ("b", writes(&missing), vec![])];
        check_across(&own).unwrap();
        check_across(&[("a", writes(&dir.join("x.png")), vec![missing.clone()]), ("b", writes(&missing), vec![])])
            .unwrap();
        let spelled = dir.join("./skin.png");
        let read = [("a", writes(&spelled), vec![]), ("b", OutputPlan::new(), vec![skin.clone()])];
        let m = check_across(&read).unwrap_err().to_string();
        let clash = format!("{}: refusing to overwrite an input file ({})", spelled.display(), skin.display());
        assert!(m.starts_with(&clash), "{m}");
        assert!(m.ends_with(": case 'a' would write it and case 'b' reads it; nothing was rendered"), "{m}");
        // Two cases writing one file: the later named after the earlier, as one plan does.
        let (first, second) = (dir.join("out/f.png"), dir.join("out/new/../f.png"));
        let twice = [("a", writes(&first), vec![]), ("b", writes(&second), vec![])];
        let e = check_across(&twice).unwrap_err();
        let mut plan = writes(&first);
        plan.add(&second, OutputFormat::Png);
        assert_eq!(e.to_string(), plan.check_distinct(&[]).unwrap_err().to_string());
        assert!(matches!(e, Error::Clash { kind: ClashKind::Output, .. }), "{e}");
        std::fs::remove_dir_all(dir).unwrap();
    }
}
