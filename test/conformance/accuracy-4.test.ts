import { accuracyMatrix } from './accuracy.js';

accuracyMatrix(4, 4);
