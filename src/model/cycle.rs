/// Materials that take turns over time, as Quake's software renderer plays a skin group: where
/// a mesh names [`MaterialCycle::material`], it shows the `i`-th of [`MaterialCycle::turns`]
/// until `ends[i]` seconds (from the end before it, or 0), the whole repeating every last end.
#[derive(Debug, Clone, PartialEq)]
pub struct MaterialCycle {
    /// The material the meshes name (the first turn's, what a still image shows).
    pub material: usize,
    /// The materials that take turns, in order, indices into [`super::Model::materials`].
    pub turns: Vec<usize>,
    /// When each turn ends, in seconds from the cycle's start; positive, one per turn.
    pub ends: Vec<f32>,
}

impl MaterialCycle {
    /// The material showing `seconds` into the animation (non-finite: 0). As Quake picks a
    /// group's skin: the time within the cycle, then the first turn whose end is past it, else
    /// the last (the ends need not increase).
    pub fn at(&self, seconds: f32) -> usize {
        let period = self.ends.last().copied().unwrap_or(0.0);
        let t = if period > 0.0 && seconds.is_finite() { seconds.rem_euclid(period) } else { 0.0 };
        let last = self.turns.len().saturating_sub(1);
        let turn = self.ends.iter().take(last).position(|&end| end > t).unwrap_or(last);
        self.turns.get(turn).copied().unwrap_or(self.material)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn turns_follow_the_ends_and_repeat() {
        let cycle = MaterialCycle { material: 0, turns: vec![0, 3, 4], ends: vec![0.1, 0.3, 0.4] };
        let at = |s: f32| cycle.at(s);
        assert_eq!([at(0.0), at(0.099), at(0.1), at(0.35), at(0.4), at(0.45), at(f32::NAN)], [0, 0, 3, 4, 0, 0, 0]);
        // Ends that do not increase: the first one past the time wins, as in Quake.
        let cycle = MaterialCycle { material: 0, turns: vec![0, 1, 2], ends: vec![0.3, 0.1, 0.5] };
        assert_eq!([cycle.at(0.05), cycle.at(0.2), cycle.at(0.35)], [0, 0, 2]);
    }
}
