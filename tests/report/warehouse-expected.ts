/** Expected outcomes of comparing the bundled recorded runs (weak → strong) on the warehouse dataset. */

/** The 39 items the weak run fails and the strong run passes (end to end), in dataset order. */
export const IMPROVED = [
  'wh-004', 'wh-005', 'wh-006', 'wh-007', 'wh-009', 'wh-014', 'wh-015', 'wh-017', 'wh-018', 'wh-019',
  'wh-020', 'wh-021', 'wh-022', 'wh-023', 'wh-027', 'wh-030', 'wh-032', 'wh-033', 'wh-034', 'wh-035',
  'wh-036', 'wh-037', 'wh-038', 'wh-042', 'wh-043', 'wh-044', 'wh-046', 'wh-048', 'wh-050', 'wh-052',
  'wh-054', 'wh-058', 'wh-059', 'wh-063', 'wh-064', 'wh-066', 'wh-068', 'wh-069', 'wh-070',
];
/** The 32 of them that reached L4 in both runs and now match. */
export const IMPROVED_AT_L4 = IMPROVED.filter((id) => !['wh-014', 'wh-030', 'wh-058', 'wh-059', 'wh-063', 'wh-064', 'wh-066'].includes(id));
