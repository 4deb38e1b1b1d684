//! [`BakeSpec`]: every option group of a bake, and reading it from a TOML table.

use serde::{Deserialize, Serialize};

use super::{
    AnimSpec, GifSpec, LayoutSpec, LimitsSpec, LookSpec, ModelSpec, MomentSpec, RenderSpec, SpriteSpec, ViewSpec,
};
use crate::error::{Error, Result};
use crate::model::UnknownName;

/// One bake, every option in its group. `BakeSpec::default()` is every command's default;
/// `bake` project files and `check` manifests read it with [`BakeSpec::from_table`].
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct BakeSpec {
    /// Which model.
    pub model: ModelSpec,
    /// What plays.
    pub anim: AnimSpec,
    /// The moment a single image shows.
    pub moment: MomentSpec,
    /// Camera and size.
    pub view: ViewSpec,
    /// Directions and frames of sprite jobs.
    pub sprite: SpriteSpec,
    /// Rendering.
    pub render: RenderSpec,
    /// Post-processing.
    pub look: LookSpec,
    /// Sheet layout.
    pub layout: LayoutSpec,
    /// GIF settings.
    pub gif: GifSpec,
    /// Resource limits.
    pub limits: LimitsSpec,
}

/// The field names serde reads for a struct (its keys), found by asking it to deserialize
/// from a deserializer that only records them.
fn field_names<'de, T: Deserialize<'de>>() -> &'static [&'static str] {
    struct Recorder<'a>(&'a mut &'static [&'static str]);
    #[derive(Debug)]
    struct Stop;
    impl std::fmt::Display for Stop {
        fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("field names recorded")
        }
    }
    impl std::error::Error for Stop {}
    impl serde::de::Error for Stop {
        fn custom<M: std::fmt::Display>(_: M) -> Stop {
            Stop
        }
    }
    impl<'de> serde::Deserializer<'de> for Recorder<'_> {
        type Error = Stop;
        fn deserialize_any<V: serde::de::Visitor<'de>>(self, _: V) -> Result<V::Value, Stop> {
            Err(Stop)
        }
        fn deserialize_struct<V: serde::de::Visitor<'de>>(
            self,
            _: &'static str,
            fields: &'static [&'static str],
            _: V,
        ) -> Result<V::Value, Stop> {
            *self.0 = fields;
            Err(Stop)
        }
        serde::forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
            option unit unit_struct newtype_struct seq tuple tuple_struct map enum identifier
            ignored_any
        }
    }
    let mut fields: &'static [&'static str] = &[];
    let _ = T::deserialize(Recorder(&mut fields));
    fields
}

/// A TOML value as a manifest writes it, for error messages.
pub(crate) fn show(value: &toml::Value) -> String {
    match value {
        toml::Value::String(s) => format!("{s:?}"),
        toml::Value::Integer(i) => i.to_string(),
        toml::Value::Float(f) => f.to_string(),
        toml::Value::Boolean(b) => b.to_string(),
        toml::Value::Datetime(d) => d.to_string(),
        toml::Value::Array(a) => format!("[{}]", a.iter().map(show).collect::<Vec<_>>().join(", ")),
        toml::Value::Table(_) => "{...}".to_string(),
    }
}

/// One group's keys and how to read them into a spec: `base` is the group's table of the
/// spec read onto (its values stay where `part` has no key).
struct Group {
    keys: fn() -> &'static [&'static str],
    read: fn(&BakeSpec, toml::Table, &mut BakeSpec) -> Result<(), toml::de::Error>,
    write: fn(&BakeSpec) -> Option<toml::Table>,
}

macro_rules! groups {
    ($($field:ident: $ty:ty),* $(,)?) => {
        const GROUPS: &[Group] = &[$(
            Group {
                keys: field_names::<$ty>,
                read: |base, part, spec| {
                    let mut table = match toml::Value::try_from(&base.$field) {
                        Ok(toml::Value::Table(t)) => t,
                        _ => toml::Table::new(),
                    };
                    table.extend(part);
                    spec.$field = toml::Value::Table(table).try_into()?;
                    Ok(())
                },
                write: |spec| match toml::Value::try_from(&spec.$field) {
                    Ok(toml::Value::Table(t)) => Some(t),
                    _ => None,
                },
            },
        )*];
    };
}

groups!(
    model: ModelSpec,
    anim: AnimSpec,
    moment: MomentSpec,
    view: ViewSpec,
    sprite: SpriteSpec,
    render: RenderSpec,
    look: LookSpec,
    layout: LayoutSpec,
    gif: GifSpec,
    limits: LimitsSpec,
);

impl BakeSpec {
    /// Every key a spec reads, group by group: exactly the long flags of the commands in
    /// snake_case (`pixel_art` is `--pixel-art`; `model` is the positional MODEL).
    pub fn keys() -> Vec<&'static str> {
        GROUPS.iter().flat_map(|g| (g.keys)().iter().copied()).collect()
    }

    /// The spec as a table of its keys, as [`BakeSpec::from_table`] reads them back: every
    /// key with a value (an unset optional key is left out).
    pub fn to_table(&self) -> toml::Table {
        GROUPS.iter().filter_map(|g| (g.write)(self)).flatten().collect()
    }

    /// Reads a spec from a TOML table (a manifest case, a project entry with its defaults
    /// merged in), every key not in `table` at its default. `extra` are keys the caller reads
    /// itself (`name`, `golden`, `output` ...), skipped here.
    ///
    /// # Errors
    /// [`Error::UnknownName`] for a key that is neither a spec key nor in `extra` (with the
    /// closest keys); [`Error::BadOption`] for a value of the wrong type or form, naming its
    /// key.
    pub fn from_table(table: &toml::Table, extra: &[&str]) -> Result<BakeSpec> {
        BakeSpec::from_table_over(&BakeSpec::default(), table, extra)
    }

    /// As [`BakeSpec::from_table`], every key not in `table` keeping its value in `base` (a
    /// project's `[[thumbnail]]` entries start from [`Profile::Thumbnail`](super::Profile::Thumbnail)).
    ///
    /// # Errors
    /// As [`BakeSpec::from_table`].
    pub fn from_table_over(base: &BakeSpec, table: &toml::Table, extra: &[&str]) -> Result<BakeSpec> {
        let mut spec = base.clone();
        let mut parts: Vec<toml::Table> = GROUPS.iter().map(|_| toml::Table::new()).collect();
        for (key, value) in table {
            if extra.contains(&key.as_str()) {
                continue;
            }
            let group = GROUPS.iter().position(|g| (g.keys)().contains(&key.as_str()));
            match group.and_then(|g| parts.get_mut(g)) {
                Some(part) => {
                    part.insert(key.clone(), value.clone());
                }
                None => {
                    let known = BakeSpec::keys().into_iter().chain(extra.iter().copied());
                    return Err(UnknownName::new("option", key, known, "").into());
                }
            }
        }
        for (group, part) in GROUPS.iter().zip(parts) {
            if let Err(e) = (group.read)(base, part.clone(), &mut spec) {
                // Name the key: the first that fails on its own (toml does not always say).
                let culprit = part.iter().find(|(key, value)| {
                    let alone = toml::Table::from_iter([((*key).clone(), (*value).clone())]);
                    (group.read)(base, alone, &mut base.clone()).is_err()
                });
                let detail = e.message().lines().next().unwrap_or_default().to_string();
                return Err(match culprit {
                    Some((key, value)) => Error::bad_option(key, show(value), detail),
                    None => Error::Invalid(detail),
                });
            }
        }
        Ok(spec)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Axis;
    use crate::spec::{JsonFormatName, Profile, Size, SizeSpec, ViewPreset};

    fn table(text: &str) -> toml::Table {
        text.parse().unwrap()
    }

    #[test]
    fn tables_read_every_group_by_flag_name() {
        let spec = BakeSpec::from_table(
            &table(
                "model = \"m.md2\"\nsize = 96\ndirections = 8\npixel_art = 3\npalette = 16\nview = \"iso\"\n\
                 light = [[0, 1, 1]]\nanim = [\"walk\"]\nframe = [1, 2.5]\njson_format = \"aseprite\"\n\
                 max_memory_mib = 600\nname = \"x\"",
            ),
            &["name"],
        )
        .unwrap();
        assert_eq!(spec.view.size, SizeSpec::Fixed(Size::square(96)));
        assert_eq!((spec.sprite.directions, spec.look.pixel_art, spec.look.palette), (8, Some(3), Some(16)));
        assert_eq!(spec.view.view, Some(ViewPreset::Iso));
        assert_eq!(spec.moment.frame, vec![1.0, 2.5]);
        assert_eq!(spec.layout.json_format, JsonFormatName::Aseprite);
        assert_eq!(spec.limits.max_memory_mib, 600);
        assert_eq!(spec.render.ssaa, RenderSpec::default().ssaa);
    }

    #[test]
    fn unknown_keys_and_bad_values_name_the_key() {
        let e = BakeSpec::from_table(&table("directons = 8"), &[]).unwrap_err().to_string();
        assert_eq!(e, "no option named 'directons'; did you mean 'directions'?");
        let e = BakeSpec::from_table(&table("size = \"big\""), &[]).unwrap_err().to_string();
        assert!(e.starts_with("`size` = \"big\": bad size 'big'"), "{e}");
        let e = BakeSpec::from_table(&table("ssaa = \"4\""), &[]).unwrap_err().to_string();
        assert!(e.starts_with("`ssaa` = \"4\": invalid type"), "{e}");
    }

    #[test]
    fn a_base_keeps_what_the_table_leaves_out() {
        let spec = BakeSpec::from_table_over(&Profile::Thumbnail.spec(), &table("yaw = 10"), &[]).unwrap();
        assert_eq!((spec.view.yaw, spec.view.pitch, spec.render.ssaa), (10.0, 20.0, 4));
        assert_eq!(spec.render.light, Profile::Thumbnail.spec().render.light);
    }

    #[test]
    fn every_group_reads_back_what_it_writes() {
        let mut spec = Profile::Thumbnail.spec();
        spec.look.palette = Some(8);
        spec.anim.attach = vec!["w.md2".parse().unwrap()];
        spec.model.facing = Some(Axis::NegY);
        spec.model.up = Some(Axis::PosZ);
        let empty = toml::Table::new();
        assert_eq!(BakeSpec::from_table_over(&spec, &empty, &[]).unwrap(), spec);
        assert_eq!(BakeSpec::from_table(&spec.to_table(), &[]).unwrap(), spec);
        assert_eq!(spec.to_table().get("palette"), Some(&toml::Value::Integer(8)));
    }
}
