-- An anonymized loan (its student deleted the account) has no student id:
-- earlier versions wrote the marker 'deleted-student' there instead. The
-- update walks loans_by_student.
UPDATE loans SET student_id = '' WHERE student_id = 'deleted-student';
