import { describe, expect, it } from 'vitest';
import { RatingScale, RatingSettings } from './contract';
import { ratingCatalogues as catalogues, en } from './words';
import { pointText, scalePoints } from './scale';

describe('rating scale points', () => {
  it('a 5-point scale without labels shows the ACR labels, lowest first, in the study language', () => {
    const scale = RatingScale.parse({ points: 5 });
    expect(scalePoints(scale, en.acrLabels).map((p) => [p.value, p.label])).toEqual([
      [1, 'Bad'],
      [2, 'Poor'],
      [3, 'Fair'],
      [4, 'Good'],
      [5, 'Excellent'],
    ]);
    expect(scalePoints(scale, catalogues.de.acrLabels).map((p) => p.label)).toEqual(['schlecht', 'dürftig', 'ordentlich', 'gut', 'ausgezeichnet']);
  });

  it("a rating study's default scale is ACR's five points", () => {
    const { scale } = RatingSettings.parse({ kind: 'rating' });
    expect(scalePoints(scale, en.acrLabels).map((p) => p.label)).toEqual(en.acrLabels);
  });

  it('a 7-point scale shows numbers, with the anchors on the lowest and highest point only', () => {
    const scale = RatingScale.parse({ points: 7, anchors: { low: 'very unnatural', high: 'completely natural' } });
    const points = scalePoints(scale, en.acrLabels);
    expect(points.map((p) => p.value)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(points.every((p) => p.label === null)).toBe(true);
    expect(points.map((p) => p.anchor)).toEqual(['very unnatural', null, null, null, null, null, 'completely natural']);
  });

  it('a 7-point scale without anchors is numbers alone', () => {
    const points = scalePoints(RatingScale.parse({ points: 7 }), en.acrLabels);
    expect(points.map((p) => [p.label, p.anchor])).toEqual(Array(7).fill([null, null]));
  });

  it("the study's own labels win over ACR's, and anchors still sit at the ends", () => {
    const labels = ['awful', 'weak', 'so-so', 'fine', 'superb'];
    const scale = RatingScale.parse({ points: 5, labels, anchors: { low: 'worst', high: 'best' } });
    const points = scalePoints(scale, catalogues.de.acrLabels);
    expect(points.map((p) => p.label)).toEqual(labels);
    expect([points[0].anchor, points[2].anchor, points[4].anchor]).toEqual(['worst', null, 'best']);
  });

  it('the contract refuses labels that do not give one per point', () => {
    expect(RatingScale.safeParse({ points: 7, labels: en.acrLabels }).success).toBe(false);
  });

  it("feedback names the point with its words, else the number alone", () => {
    const acr = scalePoints(RatingScale.parse({ points: 5 }), en.acrLabels);
    expect(pointText(acr[3])).toBe('4 (Good)');
    expect(en.ratingWrong(pointText(acr[3]))).toBe('Not quite — the intended rating is 4 (Good).');
    const seven = scalePoints(RatingScale.parse({ points: 7, anchors: { low: 'bad', high: 'great' } }), en.acrLabels);
    expect(pointText(seven[3])).toBe('4');
    expect(pointText(seven[6])).toBe('7 (great)');
  });
});
