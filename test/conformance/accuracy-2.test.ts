import { accuracyMatrix } from './accuracy.js';

accuracyMatrix(2, 4);
