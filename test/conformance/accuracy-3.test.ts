import { accuracyMatrix } from './accuracy.js';

accuracyMatrix(3, 4);
