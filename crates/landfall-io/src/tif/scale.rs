//! GDAL's band scale and offset (`gdal_translate -a_scale/-a_offset`, common on integer DEMs: an
//! Int16 in decimetres has scale 0.1): kept in the `GDAL_METADATA` tag (42112) as
//! `<Item name="SCALE" sample="0" role="scale">0.1</Item>`. GDAL and QGIS read the height as
//! raw × scale + offset; so does landfall, the nodata value compared before (in raw units).

use crate::IoError;
use std::path::Path;

/// The first band's (scale, offset) in a `GDAL_METADATA` document, when either is given and they
/// are not (1, 0); an error for one that is not a finite number.
pub(crate) fn scale_offset(path: &Path, xml: &str) -> Result<Option<(f64, f64)>, IoError> {
    let (mut scale, mut offset) = (1.0, 0.0);
    let mut rest = xml;
    while let Some(start) = rest.find("<Item") {
        let item = &rest[start..];
        let Some(close) = item.find('>') else { break };
        let (attrs, body) = (&item[..close], &item[close + 1..]);
        let value = &body[..body.find("</Item>").unwrap_or(body.len())];
        rest = &body[value.len()..];
        let role = attribute(attrs, "role").or_else(|| attribute(attrs, "name")).map(str::to_ascii_lowercase);
        let band0 = attribute(attrs, "sample").is_none_or(|s| s.trim() == "0");
        let slot = match role.as_deref() {
            Some("scale") if band0 => &mut scale,
            Some("offset") if band0 => &mut offset,
            _ => continue,
        };
        let v = value.trim();
        *slot = v.parse::<f64>().ok().filter(|v| v.is_finite()).ok_or_else(|| {
            IoError::field(
                path,
                "GDAL_METADATA",
                format!("{} '{}' is not a finite number", role.unwrap_or_default(), crate::quote(v)),
            )
        })?;
    }
    Ok(((scale, offset) != (1.0, 0.0)).then_some((scale, offset)))
}

/// The value of attribute `name` in an element's opening tag.
fn attribute<'a>(attrs: &'a str, name: &str) -> Option<&'a str> {
    let at = attrs.find(&format!(" {name}=\""))? + name.len() + 3;
    let len = attrs[at..].find('"')?;
    Some(&attrs[at..at + len])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(xml: &str) -> Result<Option<(f64, f64)>, String> {
        scale_offset(Path::new("x.tif"), xml).map_err(|e| e.to_string())
    }

    #[test]
    fn gdal_documents() {
        let gdal = "<GDALMetadata>\n  <Item name=\"OFFSET\" sample=\"0\" role=\"offset\">100</Item>\n  \
                    <Item name=\"SCALE\" sample=\"0\" role=\"scale\">0.100000000000000006</Item>\n</GDALMetadata>\n";
        assert_eq!(read(gdal), Ok(Some((0.1, 100.0))));
        // Another band's, or other items, change nothing; (1, 0) is none.
        let other = "<GDALMetadata><Item name=\"SCALE\" sample=\"1\" role=\"scale\">3</Item>\
                     <Item name=\"AREA_OR_POINT\">Point</Item></GDALMetadata>";
        assert_eq!(read(other), Ok(None));
        assert_eq!(
            read("<GDALMetadata><Item name=\"SCALE\" sample=\"0\" role=\"scale\">1</Item></GDALMetadata>"),
            Ok(None)
        );
        assert_eq!(read(""), Ok(None));
        assert_eq!(read("<Item name=\"SCALE\""), Ok(None));
        let bad = read("<GDALMetadata><Item name=\"SCALE\" sample=\"0\" role=\"scale\">nan</Item></GDALMetadata>");
        assert!(bad.unwrap_err().contains("GDAL_METADATA"));
    }
}
