/** A programme as the API shows it. */
export interface Programme {
  id: string;
  start: string;
  stop: string;
  title: string;
  desc: string;
  category: string;
  sourceFileId: string;
  needsReview: boolean;
  updatedAt: string;
}
