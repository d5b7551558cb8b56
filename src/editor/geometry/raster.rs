//! The arithmetic of the far-zoomed canvas's CPU raster (`app/pixmap.rs` draws with it):
//! which pixels a span covers and by how much, and scaling a packed premultiplied colour.
//! No GUI types, so it is tested without a window.

/// Each byte of a packed RGBA colour times `k / 256` (`k` at most 256), two bytes per
/// multiplication.
#[inline]
pub fn scale(c: u32, k: u32) -> u32 {
    let rb = (((c & 0x00ff_00ff) * k) >> 8) & 0x00ff_00ff;
    let ga = (((c >> 8) & 0x00ff_00ff) * k) & 0xff00_ff00;
    rb | ga
}

/// The pixels `lo .. hi` touches along one axis of `n` pixels, each with the length of it
/// covered (at most 1).
pub fn spans(lo: f32, hi: f32, n: usize) -> impl Iterator<Item = (usize, f32)> {
    let first = lo.max(0.0).floor();
    let last = hi.min(n as f32).ceil();
    let count = if last > first { (last - first) as usize } else { 0 };
    (0..count).filter_map(move |k| {
        let p = first + k as f32;
        let c = hi.min(p + 1.0) - lo.max(p);
        (c > 0.0).then_some((p as usize, c.min(1.0)))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_cover_the_pixels_touched_by_their_share() {
        // 1.5 .. 4.25: half of pixel 1, pixels 2 and 3 whole, a quarter of pixel 4.
        let got: Vec<_> = spans(1.5, 4.25, 10).collect();
        assert_eq!(got, vec![(1, 0.5), (2, 1.0), (3, 1.0), (4, 0.25)]);
        // Clipped to the image at both ends; nothing when empty or outside.
        assert_eq!(spans(-3.0, 1.5, 2).collect::<Vec<_>>(), vec![(0, 1.0), (1, 0.5)]);
        assert_eq!(spans(8.5, 20.0, 10).collect::<Vec<_>>(), vec![(8, 0.5), (9, 1.0)]);
        assert_eq!(spans(3.0, 3.0, 10).count(), 0);
        assert_eq!(spans(12.0, 15.0, 10).count(), 0);
        // Within one pixel: the length of the span.
        assert_eq!(spans(2.25, 2.75, 10).collect::<Vec<_>>(), vec![(2, 0.5)]);
    }

    #[test]
    fn scale_multiplies_each_byte_by_k_over_256() {
        let c = u32::from_le_bytes([200, 100, 50, 255]);
        assert_eq!(scale(c, 256), c, "256 keeps the colour");
        assert_eq!(scale(c, 0), 0);
        // 128/256 halves each byte, rounding down: 100, 50, 25, 127.
        assert_eq!(scale(c, 128).to_le_bytes(), [100, 50, 25, 127]);
        // 64/256: a quarter each, no carry between the bytes.
        assert_eq!(scale(u32::MAX, 64).to_le_bytes(), [63, 63, 63, 63]);
    }
}
