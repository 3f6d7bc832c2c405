//! The merchant profiles as the back-office keeps them: read by every
//! payment (its key, its pages, where its outcome is posted), changed by
//! the merchant in the back-office. A change replaces the list whole, so a
//! request sees the profile before or after it, never half of it; a
//! rotated API key stops working for the next create.
//!
//! A profile keeps its API key as a keyed digest and its password as a
//! hash (see [`crate::secrets`]): the `Merchant` it holds has neither (an
//! empty key, no password), and a change that sets one (a rotation) has it
//! digested as the profile is made.
//!
//! Reads are on every request and changes are rare, so the list is an
//! [`ArcSwap`]: a read takes no lock and writes no shared counter (no
//! cache line passed between cores under load), and a change builds the
//! new list and swaps it in.

use std::sync::Arc;

use arc_swap::ArcSwap;
use parking_lot::Mutex;
use url::Url;

use crate::{
    config::Merchant,
    secrets::{KeyDigest, KeyHasher, Password, PasswordHash},
};

/// A merchant's profile with its pages resolved.
#[derive(Debug)]
pub struct Profile {
    /// The profile as configured or last changed, without its API key
    /// (empty) and password (none): those are [`Self::key`] and
    /// [`Self::password`].
    pub merchant: Merchant,
    /// Its success and failure pages, absolute.
    pub pages: MerchantPages,
    /// Its API key's digest.
    pub key: KeyDigest,
    /// Its back-office password (hashed when first needed); `None`: the
    /// shop cannot sign in.
    pub password: Option<Arc<Password>>,
}

/// A profile as the data file kept it: its merchant, and the digest and
/// hash of its key and password (a file written before they were kept so
/// has them in the merchant, in plain text, and they are digested now).
#[derive(Debug)]
pub struct SavedProfile {
    /// The merchant.
    pub merchant: Merchant,
    /// Its API key's digest.
    pub key: Option<KeyDigest>,
    /// Its password's hash.
    pub password: Option<PasswordHash>,
}

/// A merchant's pages, resolved to absolute addresses.
#[derive(Clone, Debug)]
pub struct MerchantPages {
    /// Where the buyer lands after a successful payment.
    pub success: Url,
    /// Where the buyer lands after a failed or cancelled payment.
    pub failure: Url,
}

/// Every merchant profile, by index (a payment names its merchant by index).
#[derive(Debug)]
pub struct Profiles {
    list: ArcSwap<Vec<Arc<Profile>>>,
    /// Held by a change from reading the list to swapping the new one in,
    /// so two changes at once do not lose one.
    changing: Mutex<()>,
    public_url: Url,
    hasher: KeyHasher,
}

impl Profiles {
    /// The profiles of `merchants`, their page paths resolved on
    /// `public_url`, their keys digested with `hasher`.
    pub fn new(
        merchants: Vec<Merchant>,
        public_url: Url,
        hasher: KeyHasher,
    ) -> Result<Self, url::ParseError> {
        let list = merchants
            .into_iter()
            .map(|merchant| resolve(merchant, None, &public_url, &hasher).map(Arc::new))
            .collect::<Result<_, _>>()?;
        Ok(Self {
            list: ArcSwap::from_pointee(list),
            changing: Mutex::new(()),
            public_url,
            hasher,
        })
    }

    /// The profile at an index.
    ///
    /// # Panics
    /// When no merchant has that index: indexes come from the profiles
    /// themselves, and profiles are never removed.
    pub fn get(&self, index: u32) -> Arc<Profile> {
        Arc::clone(&self.list.load()[index as usize])
    }

    /// Runs `f` on the profile at an index, without taking a reference to
    /// it: the hot paths' read.
    ///
    /// # Panics
    /// As [`Self::get`].
    pub fn with<R>(&self, index: u32, f: impl FnOnce(&Profile) -> R) -> R {
        f(&self.list.load()[index as usize])
    }

    /// Refuses (1131, saying `why`) a shop login that is not the merchant's.
    pub fn check_shop(
        &self,
        merchant: u32,
        shop_login: &str,
        why: &'static str,
    ) -> Result<(), crate::error::ApiError> {
        if self.with(merchant, |p| p.merchant.shop_login == shop_login) {
            Ok(())
        } else {
            Err(crate::error::ApiError::ShopNotRecognized(why))
        }
    }

    /// The body's `shopLogin`, refused as missing (1105) or, saying `why`,
    /// as not the merchant's (1131): the first check of every operation
    /// that names a shop.
    pub fn shop_of<'a>(
        &self,
        fields: &crate::request::Fields<'a>,
        merchant: u32,
        why: &'static str,
    ) -> Result<&'a str, crate::error::ApiError> {
        let shop_login = fields.required_str("shopLogin", crate::error::code::INVALID_PARAMETER)?;
        self.check_shop(merchant, shop_login, why)?;
        Ok(shop_login)
    }

    /// The index and profile of a shop login.
    pub fn find(&self, shop_login: &str) -> Option<(u32, Arc<Profile>)> {
        let list = self.list.load();
        let index = list
            .iter()
            .position(|p| p.merchant.shop_login == shop_login)?;
        Some((u32::try_from(index).ok()?, Arc::clone(&list[index])))
    }

    /// The merchant whose API key `key` is. Its digest is compared with
    /// every profile's, in constant time, so the answer time tells nothing
    /// of how close a guess was.
    pub fn by_api_key(&self, key: &[u8]) -> Option<u32> {
        let mac = self.hasher.mac(key);
        let list = self.list.load();
        let mut found = None;
        for (i, profile) in list.iter().enumerate() {
            if profile.key.is(&mac) {
                found = Some(i);
            }
        }
        found.and_then(|i| u32::try_from(i).ok())
    }

    /// Every profile, in index order.
    pub fn all(&self) -> Vec<Arc<Profile>> {
        self.list.load_full().as_ref().clone()
    }

    /// The shop logins, by index.
    pub fn logins(&self) -> Vec<Box<str>> {
        self.list
            .load()
            .iter()
            .map(|p| p.merchant.shop_login.as_str().into())
            .collect()
    }

    /// Puts profiles read back from a data file in place of the configured
    /// ones of the same shop login; a saved shop the configuration no
    /// longer names is kept too.
    pub fn restore(&self, saved: Vec<SavedProfile>) -> Result<(), url::ParseError> {
        let _changing = self.changing.lock();
        let mut list = self.list.load_full().as_ref().clone();
        for saved in saved {
            let kept = Kept {
                key: saved.key,
                password: saved.password.map(|hash| Arc::new(Password::hashed(hash))),
            };
            let resolved = Arc::new(resolve(
                saved.merchant,
                Some(kept),
                &self.public_url,
                &self.hasher,
            )?);
            match list
                .iter_mut()
                .find(|p| p.merchant.shop_login == resolved.merchant.shop_login)
            {
                Some(slot) => *slot = resolved,
                None => list.push(resolved),
            }
        }
        self.list.store(Arc::new(list));
        Ok(())
    }

    /// Changes the profile at `index` with `change`, which sees a copy and
    /// may refuse; the profile is replaced whole once the change is made
    /// and its pages resolve.
    pub fn update<E>(
        &self,
        index: u32,
        change: impl FnOnce(&mut Merchant) -> Result<(), E>,
    ) -> Result<Arc<Profile>, UpdateError<E>> {
        let _changing = self.changing.lock();
        let mut list = self.list.load_full().as_ref().clone();
        let slot = list
            .get_mut(index as usize)
            .ok_or(UpdateError::NoSuchMerchant)?;
        let mut merchant = slot.merchant.clone();
        change(&mut merchant).map_err(UpdateError::Refused)?;
        let kept = Kept {
            key: Some(slot.key.clone()),
            password: slot.password.clone(),
        };
        let profile = resolve(merchant, Some(kept), &self.public_url, &self.hasher)
            .map_err(UpdateError::Page)?;
        let others_key = list
            .iter()
            .enumerate()
            .any(|(i, p)| i != index as usize && p.key.matches(&profile.key));
        if others_key {
            return Err(UpdateError::KeyInUse);
        }
        let profile = Arc::new(profile);
        list[index as usize] = Arc::clone(&profile);
        self.list.store(Arc::new(list));
        Ok(profile)
    }
}

/// Why a profile was not changed.
#[derive(Debug, PartialEq, Eq)]
pub enum UpdateError<E> {
    /// The change refused itself.
    Refused(E),
    /// No merchant has that index.
    NoSuchMerchant,
    /// Another merchant has that API key.
    KeyInUse,
    /// A page does not resolve on the service's address.
    Page(url::ParseError),
}

/// A profile's key and password as they were, for a merchant that does
/// not set them anew.
struct Kept {
    key: Option<KeyDigest>,
    password: Option<Arc<Password>>,
}

/// The profile of `merchant`: its pages resolved, the key and password it
/// carries digested and hashed (and taken out of it), else the `kept` ones.
fn resolve(
    mut merchant: Merchant,
    kept: Option<Kept>,
    public_url: &Url,
    hasher: &KeyHasher,
) -> Result<Profile, url::ParseError> {
    let pages = MerchantPages {
        success: public_url.join(&merchant.success_url)?,
        failure: public_url.join(&merchant.failure_url)?,
    };
    let kept = kept.unwrap_or(Kept {
        key: None,
        password: None,
    });
    let given_key = std::mem::take(&mut merchant.api_key);
    let key = match (given_key.is_empty(), kept.key) {
        (false, _) | (true, None) => hasher.digest(&given_key),
        (true, Some(kept)) => kept,
    };
    let password = match merchant.password.take() {
        Some(password) => Some(Arc::new(Password::configured(&password))),
        None => kept.password,
    };
    Ok(Profile {
        merchant,
        pages,
        key,
        password,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::ReferenceConfig;

    fn profiles() -> Profiles {
        let mut merchants = ReferenceConfig::default().merchants;
        let mut other = merchants[0].clone();
        other.shop_login = "OTHER".into();
        other.api_key = "other-key".into();
        merchants.push(other);
        Profiles::new(
            merchants,
            Url::parse("http://127.0.0.1:1/").expect("valid"),
            KeyHasher::random(),
        )
        .expect("valid")
    }

    #[test]
    fn pages_resolve_on_the_service_address() {
        let profiles = profiles();
        assert_eq!(
            profiles.get(0).pages.success.as_str(),
            "http://127.0.0.1:1/merchant/DEMO_SHOP/success"
        );
    }

    #[test]
    fn a_rotated_key_stops_at_once_and_the_new_one_works() {
        let profiles = profiles();
        assert_eq!(profiles.by_api_key(b"demo-api-key"), Some(0));
        profiles
            .update(0, |m| {
                m.api_key = "fresh".into();
                Ok::<_, ()>(())
            })
            .expect("changed");
        assert_eq!(profiles.by_api_key(b"demo-api-key"), None);
        assert_eq!(profiles.by_api_key(b"fresh"), Some(0));
    }

    #[test]
    fn a_refused_change_keeps_the_profile() {
        let profiles = profiles();
        let refused = profiles.update(0, |m| {
            m.success_url = "https://elsewhere.example/".into();
            Err("no")
        });
        assert_eq!(refused.map(drop), Err(UpdateError::Refused("no")));
        assert_eq!(
            profiles.get(0).merchant.success_url,
            "/merchant/DEMO_SHOP/success"
        );
        let clash = profiles.update(0, |m| {
            m.api_key = "other-key".into();
            Ok::<_, ()>(())
        });
        assert_eq!(clash.map(drop), Err(UpdateError::KeyInUse));
    }
}
