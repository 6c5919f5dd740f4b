//! Collision groups: a membership and a filter bitmask, shared by the terrain set's parts and the
//! collision checks between objects.

/// A membership and a filter bitmask (the note's bitfield; rapier's `InteractionGroups`): two
/// things interact when each one's memberships meet the other's filter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Groups {
    /// The groups this belongs to, one bit each.
    pub memberships: u32,
    /// The groups this may collide with.
    pub filter: u32,
}

impl Groups {
    /// In every group, colliding with every group.
    pub const ALL: Groups = Groups { memberships: u32::MAX, filter: u32::MAX };
    /// In no group: collides with nothing.
    pub const NONE: Groups = Groups { memberships: 0, filter: 0 };

    /// Groups from masks.
    pub const fn new(memberships: u32, filter: u32) -> Self {
        Self { memberships, filter }
    }

    /// The note's simple form: in `groups`, colliding with anything sharing one of them.
    pub const fn shared(groups: u32) -> Self {
        Self { memberships: groups, filter: groups }
    }

    /// Do the two interact?
    #[inline]
    pub fn interacts(self, other: Groups) -> bool {
        self.memberships & other.filter != 0 && other.memberships & self.filter != 0
    }
}

impl Default for Groups {
    fn default() -> Self {
        Self::ALL
    }
}
