//! A bundle on disk: written whole or not at all (to a file beside it,
//! renamed into place), and read back within bounds. Reading trusts
//! nothing: an archive is a gzip-compressed tar of regular files with
//! plain relative paths, each once, within the sizes below, read to the
//! gzip trailer so that one cut short is told from one that ends.

use std::{
    collections::BTreeMap,
    io::{Read, Write},
    path::Path,
};

use base64::Engine;
use ed25519_dalek::{Signer, SigningKey};

use super::{
    Entry, MANIFEST, SIGNATURE, SIGNER,
    keys::{id, public_pem},
    manifest::{FileDigest, Manifest},
};

/// The largest bundle read, compressed. A bundle of every scenario of the
/// suite is under 100 KiB; its largest file, the HAR, under 1 MiB.
const MAX_ARCHIVE_BYTES: u64 = 256 << 20;
/// The most its files may hold together, uncompressed: what a reading
/// holds in memory at most.
const MAX_CONTENT_BYTES: u64 = 256 << 20;
/// What the tar's own headers and padding may add, besides.
const MAX_FRAMING_BYTES: u64 = 16 << 20;
/// The most files it may hold.
const MAX_FILES: usize = 10_000;

/// What sealing wrote.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sealed {
    /// Its files, the manifest and signature among them.
    pub files: usize,
    /// Its size on disk.
    pub bytes: u64,
    /// The signing key's id.
    pub signer: String,
}

/// Writes a bundle of `entries` at `path`: `manifest` completed with every
/// entry's digest and the signer, signed with `key`.
pub fn seal(
    path: &Path,
    mut manifest: Manifest,
    entries: &[Entry],
    key: &SigningKey,
) -> std::io::Result<Sealed> {
    manifest.signer = id(&key.verifying_key());
    manifest.files = entries.iter().map(FileDigest::of).collect();
    let signed = manifest.to_bytes();
    let signature = key.sign(&signed);
    let mut all = vec![
        Entry::new(MANIFEST, signed),
        Entry::new(
            SIGNATURE,
            format!(
                "{}\n",
                base64::engine::general_purpose::STANDARD.encode(signature.to_bytes())
            ),
        ),
        Entry::new(SIGNER, public_pem(&key.verifying_key())),
    ];
    all.extend(entries.iter().cloned());

    let folder = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let partial = folder.join(format!(
        ".{}.partial-{}",
        path.file_name().unwrap_or_default().to_string_lossy(),
        uuid::Uuid::new_v4().simple()
    ));
    let written = write_archive(&partial, &all, &manifest.started_at);
    let written = written.and_then(|()| std::fs::rename(&partial, path));
    if let Err(error) = written {
        let _ = std::fs::remove_file(&partial);
        return Err(error);
    }
    Ok(Sealed {
        files: all.len(),
        bytes: std::fs::metadata(path)?.len(),
        signer: manifest.signer,
    })
}

fn write_archive(path: &Path, entries: &[Entry], started_at: &str) -> std::io::Result<()> {
    let file = std::fs::File::create(path)?;
    let gzip = flate2::write::GzEncoder::new(file, flate2::Compression::default());
    let mut tar = tar::Builder::new(gzip);
    let mtime =
        time::OffsetDateTime::parse(started_at, &time::format_description::well_known::Rfc3339)
            .map_or(0, |at| u64::try_from(at.unix_timestamp()).unwrap_or(0));
    for entry in entries {
        let mut header = tar::Header::new_ustar();
        header.set_size(entry.bytes.len() as u64);
        header.set_mode(0o644);
        header.set_mtime(mtime);
        header.set_entry_type(tar::EntryType::Regular);
        tar.append_data(&mut header, &entry.path, entry.bytes.as_slice())?;
    }
    let mut file = tar.into_inner()?.finish()?;
    file.flush()?;
    file.sync_all()
}

/// Why a file is no bundle this payconf can read: exit code 2.
#[derive(Debug, thiserror::Error)]
pub enum Unusable {
    /// It cannot be read at all.
    #[error("cannot be read: {0}")]
    Read(std::io::Error),
    /// It is not a gzip archive.
    #[error("not a payconf evidence bundle (not a gzip-compressed archive)")]
    NotGzip,
    /// It ends before its end.
    #[error("cut short: the archive ends before its end")]
    CutShort,
    /// Its bytes are no gzip-compressed tar. (What the bytes said is not
    /// repeated: they are the file's, not payconf's, words.)
    #[error("damaged: not a well-formed gzip-compressed tar archive")]
    Damaged,
    /// It holds what a bundle never does.
    #[error("not a payconf evidence bundle: {0}")]
    NotABundle(String),
    /// It is larger than any bundle.
    #[error("larger than any evidence bundle ({0})")]
    TooLarge(String),
}

/// A bundle's files, read back, by path.
pub fn open(path: &Path) -> Result<BTreeMap<String, Vec<u8>>, Unusable> {
    let size = std::fs::metadata(path).map_err(Unusable::Read)?.len();
    if size > MAX_ARCHIVE_BYTES {
        return Err(Unusable::TooLarge(format!("{size} bytes")));
    }
    let mut file = std::fs::File::open(path).map_err(Unusable::Read)?;
    let mut magic = [0_u8; 2];
    if file.read_exact(&mut magic).is_err() || magic != [0x1f, 0x8b] {
        return Err(Unusable::NotGzip);
    }
    let file = std::fs::File::open(path).map_err(Unusable::Read)?;
    let gzip = flate2::read::GzDecoder::new(file).take(MAX_CONTENT_BYTES + MAX_FRAMING_BYTES);
    let mut archive = tar::Archive::new(gzip);
    let mut files = BTreeMap::new();
    let mut held = 0_u64;
    let too_large =
        || Unusable::TooLarge(format!("more than {MAX_CONTENT_BYTES} bytes uncompressed"));
    let damaged = |e: std::io::Error| {
        if e.kind() == std::io::ErrorKind::UnexpectedEof {
            Unusable::CutShort
        } else {
            Unusable::Damaged
        }
    };
    for entry in archive.entries().map_err(damaged)? {
        let mut entry = entry.map_err(damaged)?;
        if files.len() >= MAX_FILES {
            return Err(Unusable::TooLarge(format!("more than {MAX_FILES} files")));
        }
        let name = plain_path(&entry)?;
        // Its size, as its header says, bounds what is read of it.
        held = held.saturating_add(entry.size());
        if held > MAX_CONTENT_BYTES {
            return Err(too_large());
        }
        if entry.header().entry_type() != tar::EntryType::Regular {
            return Err(Unusable::NotABundle(format!(
                "{} is not a regular file",
                crate::runner::neutral::inline(&name)
            )));
        }
        let mut bytes = Vec::new();
        entry.read_to_end(&mut bytes).map_err(damaged)?;
        if files.insert(name.clone(), bytes).is_some() {
            return Err(Unusable::NotABundle(format!(
                "{} is in it twice",
                crate::runner::neutral::inline(&name)
            )));
        }
    }
    // Read on to the gzip trailer, whose length and checksum tell an
    // archive that ends from one cut short.
    let mut rest = archive.into_inner();
    std::io::copy(&mut rest, &mut std::io::sink()).map_err(damaged)?;
    if rest.limit() == 0 {
        return Err(too_large());
    }
    Ok(files)
}

/// An entry's path: relative, `/`-separated, nothing but plain names.
fn plain_path<R: Read>(entry: &tar::Entry<'_, R>) -> Result<String, Unusable> {
    let raw = entry.path_bytes();
    let name = String::from_utf8_lossy(&raw).into_owned();
    let plain = std::str::from_utf8(&raw).is_ok()
        && !name.is_empty()
        && !name.starts_with('/')
        && name
            .split('/')
            .all(|part| !part.is_empty() && part != "." && part != "..");
    if plain {
        Ok(name)
    } else {
        Err(Unusable::NotABundle(format!(
            "it holds a path that is not a plain relative one ({})",
            crate::runner::neutral::inline(&name)
        )))
    }
}
