/**
 * The Wilson score interval lives in figures/wilson-interval.ts, the folder the report and the
 * dashboard share: the dashboard's A/B panel draws the same interval the report computes.
 */
export { Z95, wilsonInterval } from '../../figures/wilson-interval';
