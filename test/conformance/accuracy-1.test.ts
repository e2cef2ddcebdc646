import { accuracyMatrix } from './accuracy.js';

accuracyMatrix(1, 4);
