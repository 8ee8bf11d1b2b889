/**
 * The app's text-to-SQL feature, as its tests see it: for each supported question, the output the
 * model gave (SQL plus a prose answer for the user). A real app would call its model here; the
 * example keeps recorded outputs so that its tests are deterministic.
 */
export interface ModelAnswer {
  /** The user's question. */
  readonly question: string;
  /** The SQL the model wrote. */
  readonly sql: string;
  /** The prose answer shown to the user, written from the SQL's rows. */
  readonly answer: string;
}

const ANSWERS: Readonly<Record<string, ModelAnswer>> = {
  'revenue by city': {
    question: 'What is the revenue by city in 2024?',
    sql: [
      'SELECT c.city, SUM(o.total) AS revenue',
      'FROM orders AS o',
      'JOIN customers AS c ON c.id = o.customer_id',
      "WHERE o.ordered_at LIKE '2024-%'",
      'GROUP BY c.city',
      'ORDER BY revenue DESC',
    ].join('\n'),
    answer: 'New York leads with $450 of revenue, then London with $200.50 and Helsinki with $45.25.',
  },
  'customers without orders': {
    question: 'Which customers have never ordered?',
    sql: 'SELECT name FROM customers WHERE id NOT IN (SELECT customer_id FROM orders)',
    answer: 'One customer has never ordered: Margaret.',
  },
};

/**
 * The model's answer to a supported question.
 * @throws Error for a question the feature does not support.
 */
export function answerFor(question: string): ModelAnswer {
  const answer = ANSWERS[question];
  if (answer === undefined) throw new Error(`unsupported question: ${question}`);
  return answer;
}
